import { type ReactNode, useState } from 'react';
import { Link, useParams } from 'react-router';
import { type ApiError, api, guildPath } from '../api';
import { Badge, Loadable, Problem, When } from '../components/Status';
import { type Loaded, useAction, useLoad, useTitle } from '../hooks';
import { useGuild } from '../session';
import type { Appeal, Report } from '../types';

/** The appeals queue (accept/deny with a note) and the reports queue (actioned/dismissed), pending ones first. */
export function QueuesPage() {
  const { guild = '' } = useParams();
  const info = useGuild(guild);
  useTitle('Appeals & reports');
  return (
    <>
      <h1>Appeals &amp; reports</h1>
      {info?.caps.includes('appeals.decide') && <Appeals guild={guild} />}
      {info?.caps.includes('reports.manage') && <Reports guild={guild} />}
    </>
  );
}

function Appeals({ guild }: { guild: string }) {
  const list = useLoad<{ appeals: Appeal[] }>(guildPath(guild, '/appeals', { status: 'pending' }));
  const decide = useAction();
  const [notes, setNotes] = useState<Record<string, string>>({});
  const appeals = list.data?.appeals ?? [];
  return (
    <QueueSection
      title="Pending appeals"
      emptyText="No pending appeals."
      list={list}
      items={appeals}
      error={decide.error}
    >
      {(a) => (
        <>
          <div>
            <Link to={`/guilds/${guild}/members/${a.member}`}>{a.memberName}</Link>
            {a.caseNumber !== null && (
              <>
                {' '}
                on <Link to={`/guilds/${guild}/cases/${a.caseNumber}`}>case #{a.caseNumber}</Link>
              </>
            )}{' '}
            <When at={a.createdAt} />
          </div>
          <p className="message-content">{a.text}</p>
          <div className="inline-form">
            <div className="field grow">
              <label htmlFor={`note-${a.id}`}>Note to the member</label>
              <input
                id={`note-${a.id}`}
                maxLength={1000}
                value={notes[a.id] ?? ''}
                onChange={(e) => setNotes({ ...notes, [a.id]: e.target.value })}
              />
            </div>
            {(['accepted', 'denied'] as const).map((decision) => (
              <button
                key={decision}
                type="button"
                className={decision === 'denied' ? 'danger' : 'primary'}
                disabled={decide.busy}
                onClick={async () => {
                  const body = { decision, note: notes[a.id] ?? '' };
                  if (await decide.run(() => api('POST', guildPath(guild, `/appeals/${a.id}/decision`), body)))
                    list.reload();
                }}
              >
                {decision === 'accepted' ? 'Accept' : 'Deny'}
              </button>
            ))}
          </div>
        </>
      )}
    </QueueSection>
  );
}

function Reports({ guild }: { guild: string }) {
  const list = useLoad<{ reports: Report[] }>(guildPath(guild, '/reports', { status: 'open' }));
  const resolve = useAction();
  const reports = list.data?.reports ?? [];
  return (
    <QueueSection title="Open reports" emptyText="No open reports." list={list} items={reports} error={resolve.error}>
      {(r) => (
        <>
          <div>
            <Badge value={r.status} /> {r.reporterName} reported{' '}
            <Link to={`/guilds/${guild}/members/${r.author}`}>{r.authorName}</Link> <When at={r.createdAt} />
          </div>
          <p className="message-content">{r.content}</p>
          <p className="muted">Reason: {r.reason}</p>
          <div className="actions">
            <Link className="button" to={`/guilds/${guild}/cases/new?target=${r.author}`}>
              Open a case
            </Link>
            {(['actioned', 'dismissed'] as const).map((status) => (
              <button
                key={status}
                type="button"
                disabled={resolve.busy}
                onClick={async () => {
                  if (await resolve.run(() => api('POST', guildPath(guild, `/reports/${r.id}/resolve`), { status })))
                    list.reload();
                }}
              >
                {status === 'actioned' ? 'Mark actioned' : 'Dismiss'}
              </button>
            ))}
          </div>
        </>
      )}
    </QueueSection>
  );
}

/** One queue: its heading, the last action's error, and its items (each `children(item)`), or a note when empty. */
function QueueSection<T extends { id: string }>({
  title,
  emptyText,
  list,
  items,
  error,
  children,
}: {
  title: string;
  emptyText: string;
  list: Loaded<unknown>;
  items: T[];
  error: ApiError | null;
  children: (item: T) => ReactNode;
}) {
  return (
    <section>
      <h2>{title}</h2>
      <Problem error={error} />
      <Loadable
        loading={list.loading && !list.data}
        error={list.error}
        empty={items.length === 0}
        emptyText={emptyText}
      >
        <ul className="list queue">
          {items.map((item) => (
            <li key={item.id}>{children(item)}</li>
          ))}
        </ul>
      </Loadable>
    </section>
  );
}
