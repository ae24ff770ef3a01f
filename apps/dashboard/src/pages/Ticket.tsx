import { useState } from 'react';
import { useParams } from 'react-router';
import { api, guildPath } from '../api';
import { PlatformText } from '../components/PlatformText';
import { Badge, Loadable, Problem, When } from '../components/Status';
import { useAction, useIdempotencyKey, useLoad, useTitle } from '../hooks';
import { useGuild } from '../session';
import type { Ticket, TicketMessage } from '../types';

/** Messages per page of the conversation (the API's default page). */
const PAGE = 50;

/**
 * One ticket: its state, claim/close/reopen (with `tickets.manage`; each carries an `Idempotency-Key`, the same for a
 * retry of the same action), the notices the platform refused to post, and the conversation with attachments: the
 * newest 50 messages, older pages on demand (`before` the oldest shown), the whole transcript as a link.
 */
export function TicketPage() {
  const { guild = '', number = '' } = useParams();
  const info = useGuild(guild);
  useTitle(`Ticket #${number}`);
  const view = useLoad<{ ticket: Ticket; messages: TicketMessage[] }>(
    guildPath(guild, `/tickets/${number}`, { limit: String(PAGE) }),
  );
  const [older, setOlder] = useState<{ messages: TicketMessage[]; more: boolean } | null>(null);
  const olderAction = useAction();
  const latest = view.data?.messages ?? [];
  const messages = [...(older?.messages ?? []), ...latest];
  const more = older ? older.more : latest.length === PAGE;
  const loadOlder = async () => {
    const oldest = messages[0]?.id;
    if (!oldest) return;
    const path = guildPath(guild, `/tickets/${number}`, { limit: String(PAGE), before: oldest });
    await olderAction.run(async () => {
      const page = await api<{ messages: TicketMessage[] }>('GET', path);
      setOlder({ messages: [...page.messages, ...(older?.messages ?? [])], more: page.messages.length === PAGE });
    });
  };
  const action = useAction();
  const [reason, setReason] = useState('');
  const t = view.data?.ticket;
  const manage = info?.caps.includes('tickets.manage');
  const users = knownUsers(t, messages);
  const keys = useIdempotencyKey();
  const act = async (name: 'claim' | 'close' | 'reopen') => {
    const body = name === 'close' && reason.trim() ? { reason: reason.trim() } : {};
    const path = guildPath(guild, `/tickets/${number}/${name}`);
    if (await action.run(() => api('POST', path, body, keys.keyFor({ path, body })))) {
      keys.succeeded();
      if (name === 'close') setReason('');
      setOlder(null);
      view.reload();
    }
  };
  return (
    <>
      <h1>Ticket #{number}</h1>
      <Loadable loading={view.loading && !t} error={view.error}>
        {t && (
          <>
            <dl className="facts">
              <dt>Type</dt>
              <dd>{t.typeName}</dd>
              <dt>Status</dt>
              <dd>
                <Badge value={t.status} />
              </dd>
              <dt>Opened by</dt>
              <dd>{t.openerName}</dd>
              <dt>Claimed by</dt>
              <dd>{t.claimedName ?? '—'}</dd>
              <dt>Opened</dt>
              <dd>
                <When at={t.createdAt} />
              </dd>
              {t.closedAt && (
                <>
                  <dt>Closed</dt>
                  <dd>
                    <When at={t.closedAt} />
                    {t.closeReason && ` — ${t.closeReason}`}
                  </dd>
                </>
              )}
            </dl>
            {manage && (
              <div className="actions">
                {t.status === 'open' && (
                  <button type="button" disabled={action.busy} onClick={() => void act('claim')}>
                    Claim
                  </button>
                )}
                {t.status !== 'closed' && (
                  <>
                    <div className="field">
                      <label htmlFor="close-reason">Close reason (optional)</label>
                      <input
                        id="close-reason"
                        value={reason}
                        maxLength={512}
                        onChange={(e) => setReason(e.target.value)}
                      />
                    </div>
                    <button type="button" className="danger" disabled={action.busy} onClick={() => void act('close')}>
                      Close
                    </button>
                  </>
                )}
                {t.status === 'closed' && (
                  <button type="button" disabled={action.busy} onClick={() => void act('reopen')}>
                    Reopen
                  </button>
                )}
              </div>
            )}
            <Problem error={action.error} />
            {t.noticeFailures.length > 0 && (
              <div className="warning" role="status">
                <p>The platform refused to post these notices in the ticket's thread (the changes themselves stand):</p>
                <ul>
                  {t.noticeFailures.map((f) => (
                    <li key={`${f.action}-${f.at}`}>
                      {f.action} notice, <When at={f.at} />: {f.message} (code {f.code})
                    </li>
                  ))}
                </ul>
              </div>
            )}
            <h2>Conversation</h2>
            <p>
              <a href={guildPath(guild, `/tickets/${number}/transcript`)} target="_blank" rel="noreferrer">
                Whole transcript
              </a>
            </p>
            {more && (
              <button type="button" disabled={olderAction.busy} onClick={() => void loadOlder()}>
                Load older messages
              </button>
            )}
            <Problem error={olderAction.error} />
            {messages.length ? (
              <ol className="transcript">
                {messages.map((m) => (
                  <li key={m.id}>
                    <div className="meta">
                      <strong>{m.authorName}</strong>
                      {m.bot && <span className="badge">bot</span>} <When at={m.at} />
                    </div>
                    <PlatformText text={m.content} users={users} />
                    {m.attachments.length > 0 && (
                      <ul className="attachments">
                        {m.attachments.map((a) => (
                          <li key={a}>
                            <a href={a} target="_blank" rel="noreferrer">
                              {decodeURIComponent(new URL(a).pathname.split('/').pop() ?? a)}
                            </a>
                          </li>
                        ))}
                      </ul>
                    )}
                  </li>
                ))}
              </ol>
            ) : (
              <p className="empty">No messages.</p>
            )}
          </>
        )}
      </Loadable>
    </>
  );
}

/** Names of the people this page knows (opener, claimer, message authors), for the mentions in the transcript. */
function knownUsers(ticket: Ticket | undefined, messages: TicketMessage[]): Map<string, string> {
  const users = new Map(messages.map((m) => [m.author, m.authorName]));
  if (ticket) users.set(ticket.opener, ticket.openerName);
  if (ticket?.claimedBy && ticket.claimedName) users.set(ticket.claimedBy, ticket.claimedName);
  return users;
}
