import { useState } from 'react';
import { useParams } from 'react-router';
import { CAP_DESCRIPTIONS, CAPS, type Cap } from '../../../../libs/shared/src/contract/values';
import { api, guildPath } from '../api';
import { RoleOptions } from '../components/RoleOptions';
import { Loadable, SaveResult } from '../components/Status';
import { useAction, useLoad, useTitle } from '../hooks';
import type { StaffRole, Structure } from '../types';

/** The role being edited and the caps ticked so far. */
interface Draft {
  role: string;
  name: string;
  caps: Cap[];
}

/**
 * Staff roles and their caps (`GET …/staff`): roles holding every cap through their platform permissions are shown
 * as such; other roles are edited with one checkbox per cap and saved with `PUT …/staff/{role}` (no cap ticked
 * removes the role from staff). Any other role of the guild (from `GET …/structure`) can be added.
 */
export function StaffPage() {
  const { guild = '' } = useParams();
  useTitle('Staff roles');
  const staff = useLoad<{ roles: StaffRole[] }>(guildPath(guild, '/staff'));
  const structure = useLoad<Structure>(guildPath(guild, '/structure'));
  const save = useAction();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [adding, setAdding] = useState('');
  const roles = staff.data?.roles ?? [];
  const staffIds = new Set(roles.map((r) => r.role));
  const candidates = (structure.data?.roles ?? [])
    .filter((r) => !r.managed && r.id !== guild && !staffIds.has(r.id))
    .sort((a, b) => b.position - a.position);
  // Saving one role leaves the caps being edited for another role, and another role being added, as they are.
  const submit = async (role: string, name: string, caps: Cap[]) => {
    const done = caps.length ? `${name} saved.` : `${name} is no longer staff.`;
    if (await save.run(() => api('PUT', guildPath(guild, `/staff/${role}`), { caps }), done)) {
      setDraft((d) => (d?.role === role ? null : d));
      setAdding((a) => (a === role ? '' : a));
      staff.reload();
    }
  };
  return (
    <>
      <h1>Staff roles</h1>
      <p className="muted">
        Members get the union of the caps of their staff roles. The owner and roles with Administrator or Manage Server
        hold every cap.
      </p>
      <SaveResult action={save} />
      <Loadable loading={staff.loading && !staff.data} error={staff.error}>
        {roles.length ? (
          <ul className="list">
            {roles.map((r) => (
              <li key={r.role} data-role={r.role}>
                <strong>@{r.name}</strong>{' '}
                {r.auto ? (
                  <span className="muted">every cap through {r.discord.filter(grantsAll).join(', ')}</span>
                ) : (
                  <span className="caps">{r.caps.join(', ')}</span>
                )}
                {!r.auto && (
                  <div className="actions">
                    <button type="button" onClick={() => setDraft({ role: r.role, name: r.name, caps: r.caps })}>
                      Edit caps<span className="sr-only"> of {r.name}</span>
                    </button>
                    <button
                      type="button"
                      className="danger"
                      disabled={save.busy}
                      onClick={() => void submit(r.role, r.name, [])}
                    >
                      Remove<span className="sr-only"> {r.name}</span> from staff
                    </button>
                  </div>
                )}
              </li>
            ))}
          </ul>
        ) : (
          <p className="empty">No staff role yet.</p>
        )}
      </Loadable>
      {draft ? (
        <CapsForm
          draft={draft}
          busy={save.busy}
          onChange={setDraft}
          onSave={() => void submit(draft.role, draft.name, draft.caps)}
          onCancel={() => setDraft(null)}
        />
      ) : (
        <>
          <h2>Add a staff role</h2>
          <Loadable loading={structure.loading && !structure.data} error={structure.error}>
            <form
              className="inline-form"
              onSubmit={(e) => {
                e.preventDefault();
                const role = candidates.find((r) => r.id === adding);
                if (role) setDraft({ role: role.id, name: role.name, caps: [] });
              }}
            >
              <div className="field">
                <label htmlFor="staff-add">Role</label>
                <select id="staff-add" value={adding} onChange={(e) => setAdding(e.target.value)}>
                  <option value="">Choose a role</option>
                  <RoleOptions roles={candidates} />
                </select>
              </div>
              <button type="submit" disabled={!adding}>
                Choose caps
              </button>
            </form>
          </Loadable>
        </>
      )}
    </>
  );
}

/** The platform permissions that give a role every cap. */
function grantsAll(permission: string): boolean {
  return permission === 'Administrator' || permission === 'ManageGuild';
}

/** One checkbox per cap (with what it allows) for the role being edited. */
function CapsForm({
  draft,
  busy,
  onChange,
  onSave,
  onCancel,
}: {
  draft: Draft;
  busy: boolean;
  onChange: (draft: Draft) => void;
  onSave: () => void;
  onCancel: () => void;
}) {
  return (
    <form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        onSave();
      }}
    >
      <fieldset>
        <legend>Caps of @{draft.name}</legend>
        {CAPS.map((cap) => (
          <div className="check" key={cap}>
            <input
              id={`cap-${cap}`}
              type="checkbox"
              checked={draft.caps.includes(cap)}
              onChange={(e) =>
                onChange({
                  ...draft,
                  caps: e.target.checked ? [...draft.caps, cap] : draft.caps.filter((c) => c !== cap),
                })
              }
            />
            <label htmlFor={`cap-${cap}`}>
              <code>{cap}</code> <span className="muted">{CAP_DESCRIPTIONS[cap]}</span>
            </label>
          </div>
        ))}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Save caps
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </fieldset>
    </form>
  );
}
