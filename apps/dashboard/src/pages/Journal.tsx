import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, guildPath } from '../api';
import { Badge, Loadable, Problem, When } from '../components/Status';
import { useAction, useLoad, useTitle } from '../hooks';
import { useGuild } from '../session';
import type { JournalEvent } from '../types';

/** Journal kinds (section 6 of the spec), for the filter. */
const KINDS = [
  'message_edit',
  'message_delete',
  'message_bulk_delete',
  'member_join',
  'member_leave',
  'member_kick',
  'member_ban',
  'member_unban',
  'member_timeout',
  'member_roles',
  'member_nickname',
  'member_prune',
  'bot_add',
  'channel_create',
  'channel_update',
  'channel_delete',
  'overwrite_update',
  'role_create',
  'role_update',
  'role_delete',
  'guild_update',
  'webhook_create',
  'webhook_delete',
  'expression_create',
  'expression_update',
  'expression_delete',
  'verify',
  'forum_status',
  'settings_update',
  'antinuke_response',
];
/** Kinds `POST …/journal/{event}/undo` can revert. */
const UNDOABLE = new Set(['role_delete', 'channel_delete', 'member_ban', 'member_timeout']);

/** The guild's journal, newest first, filtered by kind, paged by event id, with undo for the undoable kinds. */
export function JournalPage() {
  const { guild = '' } = useParams();
  const info = useGuild(guild);
  useTitle('Journal');
  const [kind, setKind] = useState('');
  const [before, setBefore] = useState<string[]>([]);
  const journal = useLoad<{ events: JournalEvent[] }>(guildPath(guild, '/journal', { kind, before: before.at(-1) }));
  const undo = useAction();
  const events = journal.data?.events ?? [];
  const canUndo = info?.caps.includes('journal.undo');
  return (
    <>
      <h1>Journal</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="j-kind">Kind</label>
          <select
            id="j-kind"
            value={kind}
            onChange={(e) => {
              setBefore([]);
              setKind(e.target.value);
            }}
          >
            <option value="">All kinds</option>
            {KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </div>
      </form>
      <Problem error={undo.error} />
      <Loadable
        loading={journal.loading && !journal.data}
        error={journal.error}
        empty={events.length === 0}
        emptyText="No journal events."
      >
        <ol className="journal">
          {events.map((e) => (
            <li key={e.id} data-event={e.id}>
              <div>
                <When at={e.data.at} /> <strong className="kind">{e.kind}</strong>
                {e.targetName && (
                  <>
                    {' '}
                    —{' '}
                    {e.kind.startsWith('member_') && e.target ? (
                      <Link to={`/guilds/${guild}/members/${e.target}`}>{e.targetName}</Link>
                    ) : (
                      e.targetName
                    )}
                  </>
                )}
                {e.actorName && <span className="muted"> by {e.actorName}</span>}
                {e.viaService && <span className="badge">via Guildhall</span>}
              </div>
              {e.undoneAt ? (
                <Badge value="undone" />
              ) : (
                canUndo &&
                UNDOABLE.has(e.kind) && (
                  <button
                    type="button"
                    disabled={undo.busy}
                    onClick={async () => {
                      if (await undo.run(() => api('POST', guildPath(guild, `/journal/${e.id}/undo`), {})))
                        journal.reload();
                    }}
                  >
                    Undo
                    <span className="sr-only">
                      {' '}
                      {e.kind} {e.targetName}
                    </span>
                  </button>
                )
              )}
            </li>
          ))}
        </ol>
        <nav className="pager" aria-label="Pages">
          <button type="button" disabled={before.length === 0} onClick={() => setBefore(before.slice(0, -1))}>
            ← Newer
          </button>
          <button
            type="button"
            disabled={events.length === 0}
            onClick={() => setBefore([...before, events[events.length - 1]!.id])}
          >
            Older →
          </button>
        </nav>
      </Loadable>
    </>
  );
}
