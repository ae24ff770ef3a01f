import { useState } from 'react';
import { useParams } from 'react-router';
import { api, guildPath } from '../api';
import { ChannelSelect, textChannels } from '../components/ChannelSelect';
import { CheckField, TextField } from '../components/Fields';
import { Loadable, SaveResult } from '../components/Status';
import { useAction, useLoad, useTitle } from '../hooks';
import type { Channel, Structure, TicketSettings, TicketSettingsAnswer } from '../types';
import { TicketBlacklist } from './TicketBlacklist';
import { TicketTypes } from './TicketTypes';

/** The settings the settings form edits and saves together. */
type Texts = Pick<TicketSettings, 'panelText' | 'welcomeText' | 'pingStaff' | 'remindAfter' | 'closeAfter'>;

/** The hour fields of the settings form (0 = never, at most a year). */
const HOURS: Array<{ key: 'remindAfter' | 'closeAfter'; id: string; label: string }> = [
  { key: 'remindAfter', id: 'remind-after', label: 'Remind the opener after (hours, 0 = never)' },
  { key: 'closeAfter', id: 'close-after', label: 'Close after silence (hours, 0 = never)' },
];

/**
 * Ticket settings (panel and welcome texts, staff ping, reminder and auto-close hours), posting the panel to a
 * channel, the blacklist of members who may not open tickets, and the ticket types (panel buttons) with their modal
 * questions. Each part saves on its own and keeps its own answer; a save in one part leaves the unsaved edits of the
 * others as they are (each form starts from the settings loaded with the page, a reload of the types does not reset
 * them).
 */
export function TicketSettingsPage() {
  const { guild = '' } = useParams();
  useTitle('Ticket settings');
  const answer = useLoad<TicketSettingsAnswer>(guildPath(guild, '/tickets/settings'));
  const structure = useLoad<Structure>(guildPath(guild, '/structure'));
  const roles = (structure.data?.roles ?? []).filter((r) => !r.managed && r.id !== guild);
  // Data of another guild still shown while this one's loads (useLoad keeps it) must not seed these forms.
  const settings = answer.data?.settings.guild === guild ? answer.data.settings : undefined;
  return (
    <>
      <h1>Ticket settings</h1>
      <Loadable loading={!settings || !structure.data} error={answer.error ?? structure.error}>
        {settings && structure.data && (
          <>
            <SettingsForm key={`settings-${guild}`} guild={guild} initial={settings} />
            <PanelForm
              key={`panel-${guild}`}
              guild={guild}
              channels={textChannels(structure.data.channels)}
              initial={settings.panelChannel}
            />
            <TicketBlacklist key={`blacklist-${guild}`} guild={guild} initial={settings.blacklist} />
            <TicketTypes guild={guild} types={answer.data?.types ?? []} roles={roles} onChanged={answer.reload} />
          </>
        )}
      </Loadable>
    </>
  );
}

/** The texts, staff ping and hours, from `initial` (the settings loaded with the page), saved with `PATCH`. */
function SettingsForm({ guild, initial }: { guild: string; initial: TicketSettings }) {
  const [form, setForm] = useState<Texts>(() => {
    const { panelText, welcomeText, pingStaff, remindAfter, closeAfter } = initial;
    return { panelText, welcomeText, pingStaff, remindAfter, closeAfter };
  });
  const save = useAction();
  return (
    <form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run(() => api('PATCH', guildPath(guild, '/tickets/settings'), form), 'Settings saved.');
      }}
    >
      <TextField
        id="panel-text"
        label="Panel message"
        maxLength={2000}
        multiline
        value={form.panelText}
        onChange={(value) => setForm({ ...form, panelText: value })}
      />
      <TextField
        id="welcome-text"
        label="Welcome message ({user}, {type}, {number})"
        maxLength={1500}
        multiline
        value={form.welcomeText}
        onChange={(value) => setForm({ ...form, welcomeText: value })}
      />
      <CheckField
        id="ping-staff"
        label="Mention the staff roles in new tickets"
        checked={form.pingStaff}
        onChange={(checked) => setForm({ ...form, pingStaff: checked })}
      />
      <div className="filters">
        {HOURS.map(({ key, id, label }) => (
          <div className="field" key={key}>
            <label htmlFor={id}>{label}</label>
            <input
              id={id}
              type="number"
              min={0}
              max={8760}
              value={form[key]}
              onChange={(e) => setForm({ ...form, [key]: Number(e.target.value) })}
            />
          </div>
        ))}
      </div>
      <SaveResult action={save} />
      <button type="submit" className="primary" disabled={save.busy}>
        Save settings
      </button>
    </form>
  );
}

/** Posts (or updates) the panel in the chosen text channel (`POST …/tickets/panel`). */
function PanelForm({ guild, channels, initial }: { guild: string; channels: Channel[]; initial: string | null }) {
  const [panelChannel, setPanelChannel] = useState(initial);
  const post = useAction();
  return (
    <section aria-labelledby="panel-title">
      <h2 id="panel-title">Panel</h2>
      <SaveResult action={post} />
      <div className="inline-form">
        <ChannelSelect
          id="panel-channel"
          label="Panel channel"
          channels={channels}
          value={panelChannel}
          onChange={setPanelChannel}
          allowNone={false}
        />
        <button
          type="button"
          disabled={post.busy || !panelChannel}
          onClick={() =>
            void post.run(
              () => api('POST', guildPath(guild, '/tickets/panel'), { channel: panelChannel }),
              'Panel posted.',
            )
          }
        >
          Post the panel
        </button>
      </div>
    </section>
  );
}
