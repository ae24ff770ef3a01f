import { useState } from 'react';
import { guildPath } from '../api';
import { useLoad } from '../hooks';
import type { MemberMatch } from '../types';

/**
 * A member picker by name: typing searches the guild's members whose username or nickname starts with the text
 * (`GET …/members/search`, needs `cases.read`), and each match is a button that picks that member's id (`onPick`).
 */
export function MemberSearch({
  guild,
  id,
  label,
  onPick,
}: {
  guild: string;
  id: string;
  label: string;
  onPick: (member: MemberMatch) => void;
}) {
  const [query, setQuery] = useState('');
  const text = query.trim();
  const found = useLoad<{ members: MemberMatch[] }>(
    text ? guildPath(guild, '/members/search', { query: text, limit: '8' }) : null,
  );
  const members = text ? (found.data?.members ?? []) : [];
  return (
    <div className="field member-search">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="search" autoComplete="off" value={query} onChange={(e) => setQuery(e.target.value)} />
      {text && (
        <ul className="matches" aria-label={`Members matching ${text}`} aria-live="polite">
          {found.error && <li className="error-text">{found.error.message}</li>}
          {!found.loading && !found.error && members.length === 0 && <li className="muted">No member found.</li>}
          {members.map((m) => (
            <li key={m.id}>
              <button
                type="button"
                onClick={() => {
                  onPick(m);
                  setQuery('');
                }}
              >
                {m.name} <span className="muted">@{m.username}</span>
                <span className="sr-only"> (pick)</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
