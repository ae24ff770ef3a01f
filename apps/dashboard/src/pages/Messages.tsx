import { useState } from 'react';
import { useParams } from 'react-router';
import { guildPath } from '../api';
import { CheckField } from '../components/Fields';
import { Pager } from '../components/Pager';
import { PlatformText } from '../components/PlatformText';
import { Loadable, When } from '../components/Status';
import { useLoad, useTitle } from '../hooks';
import type { LoggedMessage, Structure } from '../types';

/** Search of the logged messages of the last 7 days: text, channel, deleted only; "Older" pages by message id. */
export function MessagesPage() {
  const { guild = '' } = useParams();
  useTitle('Message search');
  const [draft, setDraft] = useState({ q: '', channel: '', deleted: false });
  const [query, setQuery] = useState<typeof draft | null>(null);
  const [before, setBefore] = useState<string[]>([]);
  const structure = useLoad<Structure>(guildPath(guild, '/structure'));
  const names = new Map((structure.data?.channels ?? []).map((c) => [c.id, c.name]));
  const results = useLoad<{ messages: LoggedMessage[] }>(
    query
      ? guildPath(guild, '/messages', {
          q: query.q,
          channel: query.channel,
          deleted: query.deleted ? 'true' : undefined,
          before: before.at(-1),
        })
      : null,
  );
  const messages = results.data?.messages ?? [];
  const users = new Map(messages.map((m) => [m.author, m.authorName]));
  return (
    <>
      <h1>Message search</h1>
      <form
        className="filters"
        aria-label="Search messages"
        onSubmit={(e) => {
          e.preventDefault();
          setBefore([]);
          setQuery({ ...draft });
        }}
      >
        <div className="field grow">
          <label htmlFor="q">Text</label>
          <input id="q" type="search" value={draft.q} onChange={(e) => setDraft({ ...draft, q: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="m-channel">Channel</label>
          <select
            id="m-channel"
            value={draft.channel}
            onChange={(e) => setDraft({ ...draft, channel: e.target.value })}
          >
            <option value="">Any</option>
            {(structure.data?.channels ?? [])
              .filter((c) => c.kind === 'text' || c.kind === 'announcement' || c.kind === 'thread')
              .map((c) => (
                <option key={c.id} value={c.id}>
                  #{c.name}
                </option>
              ))}
          </select>
        </div>
        <CheckField
          id="m-deleted"
          label="Deleted only"
          checked={draft.deleted}
          onChange={(checked) => setDraft({ ...draft, deleted: checked })}
        />
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      {query && (
        <Loadable
          loading={results.loading}
          error={results.error}
          empty={messages.length === 0}
          emptyText="No messages found in the last 7 days."
        >
          <ol className="transcript results">
            {messages.map((m) => (
              <li key={m.id}>
                <div className="meta">
                  <strong>{m.authorName}</strong> in #{names.get(m.channel) ?? m.channel}{' '}
                  {m.deletedAt && <span className="badge badge-deleted">deleted</span>}
                  {m.editedAt && <span className="badge">edited</span>}
                </div>
                <PlatformText text={m.content} users={users} />
                {m.original !== null && m.original !== m.content && (
                  <div className="muted small">
                    Originally: <PlatformText text={m.original} users={users} block={false} />
                  </div>
                )}
                {m.deletedAt && (
                  <p className="muted small">
                    Deleted <When at={m.deletedAt} />
                  </p>
                )}
              </li>
            ))}
          </ol>
          <Pager cursors={before} next={messages.at(-1)?.id ?? null} onChange={setBefore} />
        </Loadable>
      )}
    </>
  );
}
