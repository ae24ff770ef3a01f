import { Link, Navigate, useParams } from 'react-router';
import { guildPath } from '../api';
import { PlatformText } from '../components/PlatformText';
import { Badge, Loadable } from '../components/Status';
import { useLoad, useTitle } from '../hooks';
import { allowedPages } from '../nav';
import { useGuild } from '../session';
import type { FeatureEntry } from '../types';

/** Where each setup feature is configured in the dashboard. */
const FEATURE_PAGES: Record<string, string> = {
  cases: 'cases',
  moderation: 'cases',
  appeals: 'queues',
  reports: 'queues',
  tickets: 'tickets/settings',
  logs: 'logs',
  premium: 'premium',
  packs: 'packs',
};

/**
 * The guild overview: each feature's state from `GET …/setup`, with a link to where it is set up. A member without
 * `setup.manage` lands on the first page their caps allow instead.
 */
export function OverviewPage() {
  const { guild = '' } = useParams();
  const info = useGuild(guild);
  useTitle(`Overview — ${info?.name ?? guild}`);
  const mayRead = !info || info.caps.includes('setup.manage');
  const setup = useLoad<{ features: FeatureEntry[] }>(mayRead ? guildPath(guild, '/setup') : null);
  const first = allowedPages(info?.caps ?? [])[0];
  if (!mayRead && first) return <Navigate to={`/guilds/${guild}/${first.path}`} replace />;
  return (
    <>
      <h1>Overview</h1>
      <Loadable loading={setup.loading} error={setup.error} empty={setup.data?.features.length === 0}>
        <table className="table">
          <caption className="sr-only">Features and their state</caption>
          <thead>
            <tr>
              <th scope="col">Feature</th>
              <th scope="col">State</th>
              <th scope="col">Note</th>
              <th scope="col">
                <span className="sr-only">Set up</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {setup.data?.features.map((f) => (
              <tr key={f.feature} data-feature={f.feature}>
                <td>{f.feature}</td>
                <td>
                  <Badge value={f.state} />
                </td>
                <td>
                  <PlatformText text={f.note} block={false} />
                </td>
                <td>
                  {FEATURE_PAGES[f.feature] && (
                    <Link to={`/guilds/${guild}/${FEATURE_PAGES[f.feature]}`}>
                      Set up<span className="sr-only"> {f.feature}</span>
                    </Link>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Loadable>
    </>
  );
}
