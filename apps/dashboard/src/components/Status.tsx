import type { ReactNode } from 'react';
import type { ApiError } from '../api';
import type { Action } from '../hooks';

/**
 * Why the service refused, in words, for the refusals a moderator meets in daily work (the problem's `code`); the
 * problem's own detail follows and names whose role or which case.
 */
const REFUSALS: Record<string, string> = {
  hierarchy:
    'Refused by the role hierarchy: you (and the bot) can act only on members whose highest role is below yours.',
  self: 'Refused: nobody can act on, decide or undo something about themselves. Ask another staff member.',
};

/** A problem+json answer shown to the user: its title, why (for known refusal codes), its detail and every field it names. */
export function Problem({ error }: { error: ApiError | null }) {
  if (!error) return null;
  const why = REFUSALS[error.code];
  return (
    <div className="problem" role="alert">
      <strong>{error.title}</strong>
      {error.status ? ` (${error.status})` : ''}
      {why && <p>{why}</p>}
      {error.detail && <p>{error.detail}</p>}
      {error.errors.length > 0 && (
        <ul>
          {error.errors.map((e) => (
            <li key={`${e.field}:${e.message}`}>
              <code>{e.field}</code>: {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The outcome of a `useAction` change: its problem (fields named), or its saved message as a status. */
export function SaveResult({ action }: { action: Pick<Action, 'error' | 'done'> }) {
  return (
    <>
      <Problem error={action.error} />
      {action.done && (
        <p className="ok" role="status">
          {action.done}
        </p>
      )}
    </>
  );
}

/** Loading, error or empty states around a loaded list or record; renders `children` once there is data. */
export function Loadable({
  loading,
  error,
  empty,
  emptyText = 'Nothing here yet.',
  children,
}: {
  loading: boolean;
  error: ApiError | null;
  empty?: boolean;
  emptyText?: string;
  children: ReactNode;
}) {
  if (error) return <Problem error={error} />;
  if (loading)
    return (
      <p className="muted" aria-live="polite">
        Loading…
      </p>
    );
  if (empty) return <p className="empty">{emptyText}</p>;
  return <>{children}</>;
}

/** A status word as a badge (case, ticket, report and appeal states). */
export function Badge({ value }: { value: string }) {
  return <span className={`badge badge-${value}`}>{value}</span>;
}

/** An ISO time in the reader's locale, in a <time> element. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>;
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}
