import { useState } from 'react';
import { api, guildPath } from '../api';
import { SaveResult } from '../components/Status';
import { useAction } from '../hooks';
import type { TicketSettingsAnswer } from '../types';

/**
 * The members who may not open tickets (`blacklist` of the ticket settings), starting from `initial`: each listed
 * with a Remove button, and a member id to add. Each change adds or removes that one member
 * (`PUT`/`DELETE …/tickets/blacklist/{member}`; the API names a bad id), so another staff member's change made
 * meanwhile is kept; the list shown is the API's answer, theirs included.
 */
export function TicketBlacklist({ guild, initial }: { guild: string; initial: string[] }) {
  const [blacklist, setBlacklist] = useState(initial);
  const [member, setMember] = useState('');
  const save = useAction();
  const change = (method: 'PUT' | 'DELETE', id: string, done: string) =>
    save.run(async () => {
      const answer = await api<TicketSettingsAnswer>(
        method,
        guildPath(guild, `/tickets/blacklist/${encodeURIComponent(id)}`),
      );
      setBlacklist(answer.settings.blacklist);
      if (method === 'PUT') setMember('');
    }, done);
  return (
    <section aria-labelledby="blacklist-title">
      <h2 id="blacklist-title">Blacklist</h2>
      <p className="muted">Members listed here cannot open tickets.</p>
      <SaveResult action={save} />
      {blacklist.length ? (
        <ul className="list blacklist">
          {blacklist.map((id) => (
            <li key={id} data-member={id}>
              <code>{id}</code>
              <div className="actions">
                <button
                  type="button"
                  disabled={save.busy}
                  onClick={() => void change('DELETE', id, `${id} may open tickets again.`)}
                >
                  Remove<span className="sr-only"> {id}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p className="empty">Nobody is blacklisted.</p>
      )}
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          const id = member.trim();
          if (id) void change('PUT', id, `${id} blacklisted.`);
        }}
      >
        <div className="field">
          <label htmlFor="blacklist-member">Member id</label>
          <input id="blacklist-member" inputMode="numeric" value={member} onChange={(e) => setMember(e.target.value)} />
        </div>
        <button type="submit" disabled={save.busy || !member.trim()}>
          Blacklist
        </button>
      </form>
    </section>
  );
}
