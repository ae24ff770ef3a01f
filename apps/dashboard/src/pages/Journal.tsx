import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { JOURNAL_KINDS, UNDOABLE_KINDS } from '../../../../libs/shared/src/contract/values';
import { api, guildPath } from '../api';
import { SelectField } from '../components/Filters';
import { Pager } from '../components/Pager';
import { Badge, Loadable, Problem, When } from '../components/Status';
import { useAction, useLoad, useTitle } from '../hooks';
import { useGuild } from '../session';
import type { JournalEvent } from '../types';

/** Kinds `POST …/journal/{event}/undo` can revert. */
const UNDOABLE = new Set<string>(UNDOABLE_KINDS);

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
        <SelectField
          id="j-kind"
          label="Kind"
          value={kind}
          options={JOURNAL_KINDS}
          any="All kinds"
          onChange={(value) => {
            setBefore([]);
            setKind(value);
          }}
        />
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
        <Pager cursors={before} next={events.at(-1)?.id ?? null} onChange={setBefore} />
      </Loadable>
    </>
  );
}
