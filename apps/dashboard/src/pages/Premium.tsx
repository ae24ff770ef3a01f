import { useParams } from 'react-router';
import { guildPath } from '../api';
import { Badge, Loadable, When } from '../components/Status';
import { useLoad, useTitle } from '../hooks';

interface Premium {
  entitlement: { premium: boolean; status: string; until: string | null; sources: string[] };
  history: Array<{ at: string; change: string; source: string; reason: string }>;
}

/** The guild's premium entitlement and why it last changed (`GET …/premium`). */
export function PremiumPage() {
  const { guild = '' } = useParams();
  useTitle('Premium');
  const premium = useLoad<Premium>(guildPath(guild, '/premium'));
  const p = premium.data;
  return (
    <>
      <h1>Premium</h1>
      <Loadable loading={premium.loading} error={premium.error}>
        {p && (
          <>
            <dl className="facts">
              <dt>Status</dt>
              <dd>
                <Badge value={p.entitlement.status} />
              </dd>
              <dt>Until</dt>
              <dd>
                <When at={p.entitlement.until} />
              </dd>
              <dt>Sources</dt>
              <dd>{p.entitlement.sources.join(', ') || '—'}</dd>
            </dl>
            <h2>History</h2>
            {p.history.length ? (
              <ul className="list">
                {p.history.map((h) => (
                  <li key={`${h.at}-${h.change}-${h.source}`}>
                    <When at={h.at} /> <strong>{h.change}</strong> ({h.source}) {h.reason}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="empty">No premium history.</p>
            )}
          </>
        )}
      </Loadable>
    </>
  );
}
