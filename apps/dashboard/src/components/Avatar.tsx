/** A guild's icon (`iconUrl` of `/auth/me`, on the platform CDN the CSP allows), or its initials without one. */
export function GuildIcon({ guild }: { guild: { name: string; iconUrl: string | null } }) {
  if (guild.iconUrl) return <img className="icon" src={guild.iconUrl} alt="" width={40} height={40} />;
  const initials = guild.name
    .split(/\s+/)
    .map((w) => w[0] ?? '')
    .join('')
    .slice(0, 3);
  return (
    <span className="icon initials" aria-hidden="true">
      {initials}
    </span>
  );
}
