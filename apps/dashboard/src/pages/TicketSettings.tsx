import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { api, guildPath } from '../api';
import { ChannelSelect, textChannels } from '../components/ChannelSelect';
import { Loadable, Problem } from '../components/Status';
import { useAction, useLoad, useTitle } from '../hooks';
import type { Structure } from '../types';

interface Question {
  label: string;
  placeholder: string;
  long: boolean;
  required: boolean;
}
interface TicketType {
  id: string;
  name: string;
  description: string;
  oneOpen: boolean;
  staffRoles: string[];
  questions: Question[];
}
interface Settings {
  panelChannel: string | null;
  panelText: string;
  welcomeText: string;
  pingStaff: boolean;
  remindAfter: number;
  closeAfter: number;
}
type SettingsAnswer = { settings: Settings; types: TicketType[] };

const NEW_TYPE = { name: '', description: '', oneOpen: true, staffRoles: [] as string[], questions: [] as Question[] };

/**
 * Ticket settings (panel and welcome texts, staff ping, reminder and auto-close hours), posting the panel to a
 * channel, and the ticket types (panel buttons) with their modal questions: add, edit, delete.
 */
export function TicketSettingsPage() {
  const { guild = '' } = useParams();
  useTitle('Ticket settings');
  const answer = useLoad<SettingsAnswer>(guildPath(guild, '/tickets/settings'));
  const structure = useLoad<Structure>(guildPath(guild, '/structure'));
  const [form, setForm] = useState<Settings | null>(null);
  const [panelChannel, setPanelChannel] = useState<string | null>(null);
  const [draft, setDraft] = useState<typeof NEW_TYPE & { id?: string }>(NEW_TYPE);
  const save = useAction();
  const [done, setDone] = useState('');
  useEffect(() => {
    if (!answer.data) return;
    setForm(answer.data.settings);
    setPanelChannel(answer.data.settings.panelChannel);
  }, [answer.data]);
  const run = async (what: string, fn: () => Promise<unknown>) => {
    setDone('');
    if (await save.run(fn)) {
      setDone(what);
      answer.reload();
    }
  };
  const roles = (structure.data?.roles ?? []).filter((r) => !r.managed && r.id !== guild);
  return (
    <>
      <h1>Ticket settings</h1>
      <Problem error={save.error} />
      {done && (
        <p className="ok" role="status">
          {done}
        </p>
      )}
      <Loadable loading={!form || !structure.data} error={answer.error ?? structure.error}>
        {form && structure.data && (
          <>
            <form
              className="form"
              onSubmit={(e) => {
                e.preventDefault();
                const { panelText, welcomeText, pingStaff, remindAfter, closeAfter } = form;
                void run('Settings saved.', () =>
                  api('PATCH', guildPath(guild, '/tickets/settings'), {
                    panelText,
                    welcomeText,
                    pingStaff,
                    remindAfter,
                    closeAfter,
                  }),
                );
              }}
            >
              <div className="field">
                <label htmlFor="panel-text">Panel message</label>
                <textarea
                  id="panel-text"
                  maxLength={2000}
                  value={form.panelText}
                  onChange={(e) => setForm({ ...form, panelText: e.target.value })}
                />
              </div>
              <div className="field">
                <label htmlFor="welcome-text">
                  Welcome message ({'{user}'}, {'{type}'}, {'{number}'})
                </label>
                <textarea
                  id="welcome-text"
                  maxLength={1500}
                  value={form.welcomeText}
                  onChange={(e) => setForm({ ...form, welcomeText: e.target.value })}
                />
              </div>
              <div className="check">
                <input
                  id="ping-staff"
                  type="checkbox"
                  checked={form.pingStaff}
                  onChange={(e) => setForm({ ...form, pingStaff: e.target.checked })}
                />
                <label htmlFor="ping-staff">Mention the staff roles in new tickets</label>
              </div>
              <div className="filters">
                <div className="field">
                  <label htmlFor="remind-after">Remind the opener after (hours, 0 = never)</label>
                  <input
                    id="remind-after"
                    type="number"
                    min={0}
                    max={8760}
                    value={form.remindAfter}
                    onChange={(e) => setForm({ ...form, remindAfter: Number(e.target.value) })}
                  />
                </div>
                <div className="field">
                  <label htmlFor="close-after">Close after silence (hours, 0 = never)</label>
                  <input
                    id="close-after"
                    type="number"
                    min={0}
                    max={8760}
                    value={form.closeAfter}
                    onChange={(e) => setForm({ ...form, closeAfter: Number(e.target.value) })}
                  />
                </div>
              </div>
              <button type="submit" className="primary" disabled={save.busy}>
                Save settings
              </button>
            </form>
            <h2>Panel</h2>
            <div className="inline-form">
              <ChannelSelect
                id="panel-channel"
                label="Panel channel"
                channels={textChannels(structure.data?.channels ?? [])}
                value={panelChannel}
                onChange={setPanelChannel}
                allowNone={false}
              />
              <button
                type="button"
                disabled={save.busy || !panelChannel}
                onClick={() =>
                  void run('Panel posted.', () =>
                    api('POST', guildPath(guild, '/tickets/panel'), { channel: panelChannel }),
                  )
                }
              >
                Post the panel
              </button>
            </div>
            <h2>Types</h2>
            {answer.data?.types.length ? (
              <ul className="list">
                {answer.data.types.map((t) => (
                  <li key={t.id} data-type={t.id}>
                    <strong>{t.name}</strong> {t.description && <span className="muted">— {t.description}</span>}
                    <span className="muted small">
                      {t.oneOpen ? 'one open ticket per member' : 'several open tickets allowed'}; {t.questions.length}{' '}
                      question{t.questions.length === 1 ? '' : 's'}
                    </span>
                    <div className="actions">
                      <button type="button" onClick={() => setDraft({ ...t })}>
                        Edit<span className="sr-only"> {t.name}</span>
                      </button>
                      <button
                        type="button"
                        className="danger"
                        disabled={save.busy}
                        onClick={() =>
                          void run('Type deleted.', () => api('DELETE', guildPath(guild, `/tickets/types/${t.id}`)))
                        }
                      >
                        Delete<span className="sr-only"> {t.name}</span>
                      </button>
                    </div>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="empty">No ticket types yet: add one to put a button on the panel.</p>
            )}
            <form
              className="form"
              onSubmit={(e) => {
                e.preventDefault();
                const { id, ...body } = draft;
                void run(id ? 'Type saved.' : 'Type added.', async () => {
                  await api(
                    id ? 'PUT' : 'POST',
                    guildPath(guild, id ? `/tickets/types/${id}` : '/tickets/types'),
                    body,
                  );
                  setDraft(NEW_TYPE);
                });
              }}
            >
              <fieldset>
                <legend>{draft.id ? `Edit ${draft.name}` : 'New type'}</legend>
                <div className="field">
                  <label htmlFor="type-name">Button label</label>
                  <input
                    id="type-name"
                    maxLength={80}
                    value={draft.name}
                    onChange={(e) => setDraft({ ...draft, name: e.target.value })}
                  />
                </div>
                <div className="field">
                  <label htmlFor="type-description">Description</label>
                  <input
                    id="type-description"
                    maxLength={100}
                    value={draft.description}
                    onChange={(e) => setDraft({ ...draft, description: e.target.value })}
                  />
                </div>
                <div className="check">
                  <input
                    id="type-one-open"
                    type="checkbox"
                    checked={draft.oneOpen}
                    onChange={(e) => setDraft({ ...draft, oneOpen: e.target.checked })}
                  />
                  <label htmlFor="type-one-open">One open ticket per member</label>
                </div>
                <div className="field">
                  <label htmlFor="type-roles">Staff roles</label>
                  <select
                    id="type-roles"
                    multiple
                    size={Math.min(6, Math.max(3, roles.length))}
                    value={draft.staffRoles}
                    onChange={(e) =>
                      setDraft({ ...draft, staffRoles: [...e.target.selectedOptions].map((o) => o.value) })
                    }
                  >
                    {roles.map((r) => (
                      <option key={r.id} value={r.id}>
                        @{r.name}
                      </option>
                    ))}
                  </select>
                </div>
                {draft.questions.map((q, i) => (
                  <QuestionFields
                    // biome-ignore lint/suspicious/noArrayIndexKey: questions have no id; their order is their identity
                    key={i}
                    index={i}
                    question={q}
                    onChange={(next) =>
                      setDraft({
                        ...draft,
                        questions: next
                          ? draft.questions.map((x, j) => (j === i ? next : x))
                          : draft.questions.filter((_, j) => j !== i),
                      })
                    }
                  />
                ))}
                <div className="actions">
                  <button
                    type="button"
                    disabled={draft.questions.length >= 5}
                    onClick={() =>
                      setDraft({
                        ...draft,
                        questions: [...draft.questions, { label: '', placeholder: '', long: false, required: true }],
                      })
                    }
                  >
                    Add a question
                  </button>
                  <button type="submit" className="primary" disabled={save.busy}>
                    {draft.id ? 'Save type' : 'Add type'}
                  </button>
                  {draft.id && (
                    <button type="button" onClick={() => setDraft(NEW_TYPE)}>
                      Cancel
                    </button>
                  )}
                </div>
              </fieldset>
            </form>
          </>
        )}
      </Loadable>
    </>
  );
}

/** One modal question of a ticket type (null from `onChange` removes it). */
function QuestionFields({
  index,
  question,
  onChange,
}: {
  index: number;
  question: Question;
  onChange: (next: Question | null) => void;
}) {
  const id = `q${index}`;
  return (
    <fieldset>
      <legend>Question {index + 1}</legend>
      <div className="field">
        <label htmlFor={`${id}-label`}>Question</label>
        <input
          id={`${id}-label`}
          maxLength={45}
          value={question.label}
          onChange={(e) => onChange({ ...question, label: e.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-placeholder`}>Placeholder</label>
        <input
          id={`${id}-placeholder`}
          maxLength={100}
          value={question.placeholder}
          onChange={(e) => onChange({ ...question, placeholder: e.target.value })}
        />
      </div>
      <div className="check">
        <input
          id={`${id}-long`}
          type="checkbox"
          checked={question.long}
          onChange={(e) => onChange({ ...question, long: e.target.checked })}
        />
        <label htmlFor={`${id}-long`}>Long answer</label>
        <input
          id={`${id}-required`}
          type="checkbox"
          checked={question.required}
          onChange={(e) => onChange({ ...question, required: e.target.checked })}
        />
        <label htmlFor={`${id}-required`}>Required</label>
      </div>
      <button type="button" className="danger" onClick={() => onChange(null)}>
        Remove question {index + 1}
      </button>
    </fieldset>
  );
}
