import { Link, useParams } from 'react-router';
import { JOURNAL_KINDS, UNDOABLE_KINDS } from '../../../../libs/shared/src/contract/values';
import { api, guildPath } from '../api';
import { IdField, SelectField, useUrlFilters } from '../components/Filters';
import { Pager } from '../components/Pager';
import { PlatformText, useGuildNames } from '../components/PlatformText';
import { Badge, Loadable, Problem, When } from '../components/Status';
import { useAction, useLoad, useTitle } from '../hooks';
import { changesOf, describeEvent, fieldWords } from '../journalText';
import { useGuild } from '../session';
import type { JournalEvent, Structure } from '../types';

/** Kinds `POST …/journal/{event}/undo` can revert. */
const UNDOABLE = new Set<string>(UNDOABLE_KINDS);

/** `data` fields shown as the platform's text (message content). */
const TEXT_FIELDS = new Set(['content', 'original']);

/** `data` fields the line or the diff already shows. */
const SHOWN_ELSEWHERE = new Set(['at', 'changes', 'before', 'after']);

/**
 * The guild's journal, newest first: one line per event in words (`describeEvent`), its details (the changed fields
 * before and after, the other `data` fields, message content rendered as the platform does), filters for kind, actor,
 * target and channel (kept in the URL), paging by event id, and undo for the undoable kinds.
 */
export function JournalPage() {
  const { guild = '' } = useParams();
  const info = useGuild(guild);
  useTitle('Journal');
  const { filters, setFilters, cursors, setCursors } = useUrlFilters(['kind', 'actor', 'target', 'channel'] as const);
  const journal = useLoad<{ events: JournalEvent[] }>(
    guildPath(guild, '/journal', { ...filters, before: cursors.at(-1) }),
  );
  const structure = useLoad<Structure>(info?.caps.includes('structure.read') ? guildPath(guild, '/structure') : null);
  const names = useGuildNames();
  const undo = useAction();
  const events = journal.data?.events ?? [];
  const canUndo = info?.caps.includes('journal.undo');
  return (
    <>
      <h1>Journal</h1>
      <form className="filters" aria-label="Filter the journal" onSubmit={(e) => e.preventDefault()}>
        <SelectField
          id="j-kind"
          label="Kind"
          value={filters.kind}
          options={JOURNAL_KINDS}
          any="All kinds"
          onChange={(kind) => setFilters({ kind })}
        />
        <IdField
          id="j-actor"
          name="actor"
          label="Actor id"
          value={filters.actor}
          onCommit={(actor) => setFilters({ actor })}
        />
        <IdField
          id="j-target"
          name="target"
          label="Target id"
          value={filters.target}
          onCommit={(target) => setFilters({ target })}
        />
        <div className="field">
          <label htmlFor="j-channel">Channel</label>
          <select id="j-channel" value={filters.channel} onChange={(e) => setFilters({ channel: e.target.value })}>
            <option value="">Any</option>
            {(structure.data?.channels ?? [])
              .filter((c) => c.kind !== 'category')
              .sort((a, b) => a.position - b.position)
              .map((c) => (
                <option key={c.id} value={c.id}>
                  #{c.name}
                </option>
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
            <li key={e.id} data-event={e.id} data-kind={e.kind}>
              <div className="line">
                <When at={e.data.at} /> <span className="event-text">{describeEvent(e, names)}</span>
                {e.viaService && <span className="badge">via Guildhall</span>}
                {e.kind.startsWith('member_') && e.target && (
                  <>
                    {' '}
                    <Link to={`/guilds/${guild}/members/${e.target}`}>
                      Record<span className="sr-only"> of {e.targetName ?? e.target}</span>
                    </Link>
                  </>
                )}
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
              <EventDetails event={e} />
            </li>
          ))}
        </ol>
        <Pager cursors={cursors} next={events.at(-1)?.id ?? null} onChange={setCursors} />
      </Loadable>
    </>
  );
}

/** A value of `data` in the detail panel: message content as the platform's text, other text as is, else JSON. */
function DataValue({ field, value, users }: { field: string; value: unknown; users: ReadonlyMap<string, string> }) {
  if (value === undefined || value === null || value === '') return <span className="muted">none</span>;
  if (typeof value === 'string')
    return TEXT_FIELDS.has(field) ? <PlatformText text={value} users={users} block={false} /> : value;
  return <code>{JSON.stringify(value)}</code>;
}

/** The disclosure of one event: its changed fields as a before/after table, then its other `data` fields. */
function EventDetails({ event }: { event: JournalEvent }) {
  const data = event.data as Record<string, unknown>;
  const changes = changesOf(event.kind, data);
  const users = new Map<string, string>();
  if (event.actor && event.actorName) users.set(event.actor, event.actorName);
  if (event.target && event.targetName) users.set(event.target, event.targetName);
  const field = event.kind === 'message_edit' ? 'content' : '';
  const rest = Object.entries(data).filter(([key, value]) => !SHOWN_ELSEWHERE.has(key) && value !== undefined);
  return (
    <details>
      <summary>
        Details<span className="sr-only"> of {event.kind}</span>
      </summary>
      {changes.length > 0 && (
        <table className="diff">
          <caption className="sr-only">Changes</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={c.key} data-field={c.key}>
                <th scope="row">{fieldWords(c.key)}</th>
                <td>
                  <del>
                    <DataValue field={field || c.key} value={c.before} users={users} />
                  </del>
                </td>
                <td>
                  <ins>
                    <DataValue field={field || c.key} value={c.after} users={users} />
                  </ins>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {rest.length > 0 && (
        <dl className="facts">
          {rest.map(([key, value]) => (
            <div key={key} data-field={key}>
              <dt>{fieldWords(key)}</dt>
              <dd>
                <DataValue field={key} value={value} users={users} />
              </dd>
            </div>
          ))}
        </dl>
      )}
    </details>
  );
}
