import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, guildPath } from '../api';
import { Badge, Loadable, Problem, When } from '../components/Status';
import { useAction, useLoad, useTitle } from '../hooks';
import { useGuild, useSession } from '../session';
import type { CaseDetail } from '../types';

/**
 * One case: its fields, where it was taken (through Guildhall or in the platform's own client), the case that
 * superseded it, why it failed, its history, and (with the caps) revoke and edit reason. Revoke is offered for a live
 * or superseded timeout/ban (a superseded one lifts nothing) and never on a case about the signed-in user.
 */
export function CaseDetailPage() {
  const { guild = '', number = '' } = useParams();
  const info = useGuild(guild);
  const me = useSession().me?.user.id;
  useTitle(`Case #${number}`);
  const detail = useLoad<CaseDetail>(guildPath(guild, `/cases/${number}`));
  const action = useAction();
  const [reason, setReason] = useState('');
  // A link from one case to another keeps the page: the previous case's answer is not shown under the new number.
  const c = detail.data?.case.number === Number(number) ? detail.data.case : undefined;
  // Follows the stored reason, not every reload: revoking keeps a reason being edited.
  const storedReason = c?.reason;
  useEffect(() => {
    if (storedReason !== undefined) setReason(storedReason);
  }, [storedReason]);
  const canRevoke =
    info?.caps.includes('cases.revoke') &&
    c &&
    c.target !== me &&
    (c.action === 'timeout' || c.action === 'ban') &&
    (c.status === 'active' || c.status === 'superseded');
  const supersededBy = detail.data?.supersededBy ?? null;
  return (
    <>
      <h1>Case #{number}</h1>
      <Loadable loading={detail.loading && !c} error={detail.error}>
        {c && (
          <>
            <dl className="facts">
              <dt>Action</dt>
              <dd>{c.action}</dd>
              <dt>Status</dt>
              <dd>
                <Badge value={c.status} />
              </dd>
              <dt>Member</dt>
              <dd>
                <Link to={`/guilds/${guild}/members/${c.target}`}>{c.targetName}</Link> <code>{c.target}</code>
              </dd>
              <dt>Moderator</dt>
              <dd>{c.moderatorName}</dd>
              <dt>Taken</dt>
              <dd>
                {detail.data?.origin === 'platform'
                  ? "in the platform's own client (registered from its audit log)"
                  : 'through Guildhall'}
              </dd>
              {supersededBy !== null && (
                <>
                  <dt>Superseded by</dt>
                  <dd>
                    <Link to={`/guilds/${guild}/cases/${supersededBy}`}>Case #{supersededBy}</Link>{' '}
                    <span className="muted">(the live punishment now; this case lifts nothing)</span>
                  </dd>
                </>
              )}
              <dt>Reason</dt>
              <dd className="case-reason">{c.reason}</dd>
              <dt>Created</dt>
              <dd>
                <When at={c.createdAt} />
              </dd>
              <dt>Expires</dt>
              <dd>
                <When at={c.expiresAt} />
              </dd>
            </dl>
            {detail.data?.failure && (
              <div className="problem" role="status">
                <strong>The platform refused this action</strong> ({detail.data.failure.status}, code{' '}
                {detail.data.failure.code}): {detail.data.failure.message}
              </div>
            )}
            {info?.caps.includes('cases.write') && (
              <form
                className="inline-form"
                onSubmit={async (e) => {
                  e.preventDefault();
                  if (await action.run(() => api('PATCH', guildPath(guild, `/cases/${number}`), { reason })))
                    detail.reload();
                }}
              >
                <div className="field grow">
                  <label htmlFor="reason">Reason</label>
                  <input id="reason" value={reason} maxLength={512} onChange={(e) => setReason(e.target.value)} />
                </div>
                <button type="submit" disabled={action.busy || reason === c.reason}>
                  Save reason
                </button>
              </form>
            )}
            {canRevoke && (
              <button
                type="button"
                className="danger"
                disabled={action.busy}
                onClick={async () => {
                  if (await action.run(() => api('POST', guildPath(guild, `/cases/${number}/revoke`)))) detail.reload();
                }}
              >
                {c.status === 'superseded'
                  ? 'Revoke (lifts nothing: a newer case is live)'
                  : `Revoke (${c.action === 'ban' ? 'unban' : 'lift timeout'})`}
              </button>
            )}
            <Problem error={action.error} />
            <h2>History</h2>
            <ol className="timeline">
              {detail.data?.history.map((h) => (
                <li key={`${h.change}-${h.at}`}>
                  <When at={h.at} /> <strong>{h.change}</strong>
                  {h.byName && ` by ${h.byName}`}
                  {h.previousReason !== null && <span className="muted"> (was: {h.previousReason})</span>}
                  {h.failure && <span className="error-text"> — refused: {h.failure.message}</span>}
                  {h.note && <span className="muted"> — {h.note}</span>}
                </li>
              ))}
            </ol>
          </>
        )}
      </Loadable>
    </>
  );
}
