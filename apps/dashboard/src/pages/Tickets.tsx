import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { guildPath } from '../api';
import { Pager } from '../components/Pager';
import { Badge, Loadable, When } from '../components/Status';
import { useLoad, useTitle } from '../hooks';
import { useGuild } from '../session';
import type { Ticket } from '../types';

const STATUSES = ['open', 'claimed', 'closed'];

/** Tickets of the guild, newest first, filtered by status and opener (kept in the URL), paged. */
export function TicketsPage() {
  const { guild = '' } = useParams();
  const info = useGuild(guild);
  useTitle('Tickets');
  const [params, setParams] = useSearchParams();
  const [cursors, setCursors] = useState<string[]>([]);
  const status = params.get('status') ?? '';
  const opener = params.get('opener') ?? '';
  const list = useLoad<{ tickets: Ticket[]; next: number | null }>(
    guildPath(guild, '/tickets', { status, opener, before: cursors.at(-1), limit: '25' }),
  );
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setCursors([]);
    setParams(next, { replace: true });
  };
  return (
    <>
      <div className="heading">
        <h1>Tickets</h1>
        {info?.caps.includes('tickets.manage') && (
          <Link className="button" to={`/guilds/${guild}/tickets/settings`}>
            Settings and types
          </Link>
        )}
      </div>
      <form
        className="filters"
        aria-label="Filter tickets"
        onSubmit={(e) => {
          e.preventDefault();
          set('opener', String(new FormData(e.currentTarget).get('opener')).trim());
        }}
      >
        <div className="field">
          <label htmlFor="t-status">Status</label>
          <select id="t-status" value={status} onChange={(e) => set('status', e.target.value)}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="t-opener">Opened by (member id)</label>
          <input
            id="t-opener"
            name="opener"
            inputMode="numeric"
            defaultValue={opener}
            onBlur={(e) => set('opener', e.target.value.trim())}
          />
        </div>
        <button type="submit">Apply</button>
      </form>
      <Loadable
        loading={list.loading}
        error={list.error}
        empty={list.data?.tickets.length === 0}
        emptyText="No tickets match."
      >
        <div className="scroll">
          <table className="table tickets">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Type</th>
                <th scope="col">Opened by</th>
                <th scope="col">Status</th>
                <th scope="col">Claimed by</th>
                <th scope="col">Opened</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.tickets.map((t) => (
                <tr key={t.number} data-ticket={t.number}>
                  <td>
                    <Link to={`/guilds/${guild}/tickets/${t.number}`}>#{t.number}</Link>
                  </td>
                  <td>{t.typeName}</td>
                  <td>{t.openerName}</td>
                  <td>
                    <Badge value={t.status} />
                  </td>
                  <td>{t.claimedName ?? '—'}</td>
                  <td>
                    <When at={t.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager cursors={cursors} next={list.data?.next != null ? String(list.data.next) : null} onChange={setCursors} />
      </Loadable>
    </>
  );
}
