import { useState } from 'react';
import { api, guildPath } from '../api';
import { CheckField, TextField } from '../components/Fields';
import { RoleOptions } from '../components/RoleOptions';
import { SaveResult } from '../components/Status';
import { useAction } from '../hooks';
import type { TicketQuestion as Question, Structure, TicketType } from '../types';

type Draft = Omit<TicketType, 'id' | 'emoji'> & { id?: string; emoji?: string | null };

const NEW_TYPE: Draft = { name: '', description: '', oneOpen: true, staffRoles: [], questions: [] };

/**
 * The ticket types (panel buttons) with their modal questions: listed with Edit and Delete, and a form that adds a
 * type or saves the one being edited (`POST …/tickets/types`, `PUT`/`DELETE …/tickets/types/{type}`). After each
 * change `onChanged` reloads the types; the form being edited is kept.
 */
export function TicketTypes({
  guild,
  types,
  roles,
  onChanged,
}: {
  guild: string;
  types: TicketType[];
  roles: Structure['roles'];
  onChanged: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(NEW_TYPE);
  const save = useAction();
  const change = async (fn: () => Promise<unknown>, done: string) => {
    if (await save.run(fn, done)) onChanged();
  };
  return (
    <>
      <h2>Types</h2>
      <SaveResult action={save} />
      {types.length ? (
        <ul className="list">
          {types.map((t) => (
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
                    void change(() => api('DELETE', guildPath(guild, `/tickets/types/${t.id}`)), 'Type deleted.')
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
          void change(
            async () => {
              await api(id ? 'PUT' : 'POST', guildPath(guild, id ? `/tickets/types/${id}` : '/tickets/types'), body);
              setDraft(NEW_TYPE);
            },
            id ? 'Type saved.' : 'Type added.',
          );
        }}
      >
        <fieldset>
          <legend>{draft.id ? `Edit ${draft.name}` : 'New type'}</legend>
          <TextField
            id="type-name"
            label="Button label"
            maxLength={80}
            value={draft.name}
            onChange={(value) => setDraft({ ...draft, name: value })}
          />
          <TextField
            id="type-description"
            label="Description"
            maxLength={100}
            value={draft.description}
            onChange={(value) => setDraft({ ...draft, description: value })}
          />
          <CheckField
            id="type-one-open"
            label="One open ticket per member"
            checked={draft.oneOpen}
            onChange={(checked) => setDraft({ ...draft, oneOpen: checked })}
          />
          <div className="field">
            <label htmlFor="type-roles">Staff roles</label>
            <select
              id="type-roles"
              multiple
              size={Math.min(6, Math.max(3, roles.length))}
              value={draft.staffRoles}
              onChange={(e) => setDraft({ ...draft, staffRoles: [...e.target.selectedOptions].map((o) => o.value) })}
            >
              <RoleOptions roles={roles} />
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
      <TextField
        id={`${id}-label`}
        label="Question"
        maxLength={45}
        value={question.label}
        onChange={(value) => onChange({ ...question, label: value })}
      />
      <TextField
        id={`${id}-placeholder`}
        label="Placeholder"
        maxLength={100}
        value={question.placeholder}
        onChange={(value) => onChange({ ...question, placeholder: value })}
      />
      <CheckField
        id={`${id}-long`}
        label="Long answer"
        checked={question.long}
        onChange={(long) => onChange({ ...question, long })}
      />
      <CheckField
        id={`${id}-required`}
        label="Required"
        checked={question.required}
        onChange={(required) => onChange({ ...question, required })}
      />
      <button type="button" className="danger" onClick={() => onChange(null)}>
        Remove question {index + 1}
      </button>
    </fieldset>
  );
}
