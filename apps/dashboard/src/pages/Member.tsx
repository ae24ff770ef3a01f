import { Link, useParams } from 'react-router';
import { guildPath } from '../api';
import { PlatformText, useGuildNames } from '../components/PlatformText';
import { Badge, Loadable, When } from '../components/Status';
import { useLoad, useTitle } from '../hooks';
import { describeEvent } from '../journalText';
import { useGuild } from '../session';
import type { MemberRecord } from '../types';
import { formatSeconds } from './CaseCreate';
import { CaseTable } from './Cases';

/** A member's record: who, their cases, journal events, deleted messages, reports, and the suggested next step. */
export function MemberPage() {
  const { guild = '', user = '' } = useParams();
  const info = useGuild(guild);
  const record = useLoad<MemberRecord>(guildPath(guild, `/members/${user}`));
  const r = record.data;
  const names = useGuildNames();
  useTitle(r ? `Member ${r.user.name}` : 'Member');
  return (
    <>
      <div className="heading">
        <h1>{r?.user.name ?? 'Member'}</h1>
        {info?.caps.includes('cases.write') && (
          <Link className="button primary" to={`/guilds/${guild}/cases/new?target=${user}`}>
            New case
          </Link>
        )}
      </div>
      <Loadable loading={record.loading && !r} error={record.error}>
        {r && (
          <>
            <p>
              <code>{r.user.id}</code> — {r.user.inServer ? 'in the server' : 'not in the server'}
            </p>
            <p className="suggestion">
              Suggested next: <strong>{r.suggestion.action}</strong>
              {r.suggestion.duration ? ` for ${formatSeconds(r.suggestion.duration)}` : ''} — {r.suggestion.why}
            </p>
            <h2>Cases ({r.cases.length})</h2>
            {r.cases.length ? <CaseTable guild={guild} cases={r.cases} /> : <p className="empty">No cases.</p>}
            <h2>Journal ({r.events.length})</h2>
            {r.events.length ? (
              <ul className="list">
                {r.events.map((e) => (
                  <li key={e.id}>
                    <When at={e.data.at} /> {describeEvent(e, names)}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="empty">No journal events.</p>
            )}
            <h2>Deleted messages ({r.deleted.length})</h2>
            {r.deleted.length ? (
              <ul className="list">
                {r.deleted.map((m) => (
                  <li key={m.id}>
                    <When at={m.deletedAt} />{' '}
                    <PlatformText text={m.content} users={new Map([[r.user.id, r.user.name]])} />
                  </li>
                ))}
              </ul>
            ) : (
              <p className="empty">No deleted messages.</p>
            )}
            <h2>Reports ({r.reports.length})</h2>
            {r.reports.length ? (
              <ul className="list">
                {r.reports.map((p) => (
                  <li key={p.id}>
                    <When at={p.createdAt} /> <Badge value={p.status} /> by {p.reporterName}: {p.reason}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="empty">No reports.</p>
            )}
          </>
        )}
      </Loadable>
    </>
  );
}
