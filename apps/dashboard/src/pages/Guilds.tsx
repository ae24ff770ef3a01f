import { Link } from 'react-router';
import { GuildIcon } from '../components/Avatar';
import { useTitle } from '../hooks';
import { useSession } from '../session';

/**
 * The guild picker: guilds of `/auth/me` where the bot is (open them), and manageable guilds without the bot
 * (invite link).
 */
export function GuildsPage() {
  useTitle('Your guilds');
  const { me } = useSession();
  const guilds = me?.guilds ?? [];
  const ready = guilds.filter((g) => g.bot !== false);
  const invite = guilds.filter((g) => g.bot === false);
  return (
    <main id="content" className="content narrow">
      <h1>Your guilds</h1>
      {ready.length === 0 && <p className="empty">No guild with Guildhall where you have access.</p>}
      <ul className="cards">
        {ready.map((g) => (
          <li key={g.id}>
            <Link className="card" to={`/guilds/${g.id}`}>
              <GuildIcon guild={g} />
              <span>
                <strong>{g.name}</strong>
                <span className="muted small">
                  {g.owner ? 'Owner' : `${g.caps.length} permission${g.caps.length === 1 ? '' : 's'}`}
                </span>
              </span>
            </Link>
          </li>
        ))}
      </ul>
      {invite.length > 0 && (
        <>
          <h2>Add Guildhall</h2>
          <ul className="cards">
            {invite.map((g) => (
              <li key={g.id} className="card">
                <GuildIcon guild={g} />
                <strong>{g.name}</strong>
                {g.invite && (
                  <a className="button" href={g.invite}>
                    Invite the bot<span className="sr-only"> to {g.name}</span>
                  </a>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </main>
  );
}
