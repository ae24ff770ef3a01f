import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { api, guildPath } from '../api';
import { ChannelSelect, textChannels } from '../components/ChannelSelect';
import { CheckField } from '../components/Fields';
import { Loadable, SaveResult } from '../components/Status';
import { useAction, useLoad, useTitle } from '../hooks';
import { useGuild } from '../session';
import type { LogSettings, Structure } from '../types';

const DESTINATIONS: Array<{ key: keyof LogSettings; label: string }> = [
  { key: 'messagesChannel', label: 'Message edits and deletions' },
  { key: 'membersChannel', label: 'Members (joins, leaves, roles, nicknames)' },
  { key: 'moderationChannel', label: 'Moderation (bans, kicks, timeouts)' },
  { key: 'serverChannel', label: 'Server (channels, roles, settings)' },
];

/**
 * Log destinations (one channel per category, or off) and ignore rules (channels or categories, bots), with channel
 * pickers from the guild's structure. Saved with `PUT …/logs`; the stored settings are shown after saving.
 */
export function LogSettingsPage() {
  const { guild = '' } = useParams();
  const info = useGuild(guild);
  useTitle('Log settings');
  const stored = useLoad<{ settings: LogSettings }>(guildPath(guild, '/logs'));
  const structure = useLoad<Structure>(guildPath(guild, '/structure'));
  const [form, setForm] = useState<LogSettings | null>(null);
  const save = useAction();
  useEffect(() => {
    if (stored.data) setForm(stored.data.settings);
  }, [stored.data]);
  const channels = textChannels(structure.data?.channels ?? []);
  const ignorable = (structure.data?.channels ?? [])
    .filter((c) => c.kind !== 'voice' && c.kind !== 'thread')
    .sort((a, b) => a.position - b.position);
  const canManage = info?.caps.includes('logs.manage');
  return (
    <>
      <h1>Log settings</h1>
      <Loadable loading={!form || !structure.data} error={stored.error ?? structure.error}>
        {form && structure.data && (
          <form
            className="form"
            onSubmit={async (e) => {
              e.preventDefault();
              const { messagesChannel, membersChannel, moderationChannel, serverChannel, ignoredChannels, ignoreBots } =
                form;
              const body = {
                messagesChannel,
                membersChannel,
                moderationChannel,
                serverChannel,
                ignoredChannels,
                ignoreBots,
              };
              await save.run(async () => {
                setForm((await api<{ settings: LogSettings }>('PUT', guildPath(guild, '/logs'), body)).settings);
              }, 'Saved.');
            }}
          >
            <fieldset disabled={!canManage}>
              <legend>Destinations</legend>
              {DESTINATIONS.map((d) => (
                <ChannelSelect
                  key={d.key}
                  id={`dest-${d.key}`}
                  label={d.label}
                  channels={channels}
                  value={form[d.key] as string | null}
                  onChange={(v) => setForm({ ...form, [d.key]: v })}
                />
              ))}
            </fieldset>
            <fieldset disabled={!canManage}>
              <legend>Ignore</legend>
              <div className="field">
                <label htmlFor="ignored">Ignored channels and categories</label>
                <select
                  id="ignored"
                  multiple
                  size={Math.min(8, Math.max(3, ignorable.length))}
                  value={form.ignoredChannels}
                  onChange={(e) =>
                    setForm({ ...form, ignoredChannels: [...e.target.selectedOptions].map((o) => o.value) })
                  }
                >
                  {ignorable.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.kind === 'category' ? `▸ ${c.name}` : `#${c.name}`}
                    </option>
                  ))}
                </select>
              </div>
              <CheckField
                id="ignore-bots"
                label="Ignore messages of bots"
                checked={form.ignoreBots}
                onChange={(checked) => setForm({ ...form, ignoreBots: checked })}
              />
            </fieldset>
            <SaveResult action={save} />
            {canManage && (
              <button type="submit" className="primary" disabled={save.busy}>
                Save log settings
              </button>
            )}
          </form>
        )}
      </Loadable>
    </>
  );
}
