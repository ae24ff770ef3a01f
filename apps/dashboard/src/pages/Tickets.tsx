import { Link, useParams } from 'react-router';
import { TICKET_STATUSES } from '../../../../libs/shared/src/contract/values';
import { guildPath } from '../api';
import { IdField, SelectField, useUrlFilters } from '../components/Filters';
import { Pager } from '../components/Pager';
import { Badge, Loadable, When } from '../components/Status';
import { Table } from '../components/Table';
import { useLoad, useTitle } from '../hooks';
import { useGuild } from '../session';
import type { Ticket } from '../types';

/** Tickets of the guild, newest first, filtered by status and opener (kept in the URL), paged. */
export function TicketsPage() {
  const { guild = '' } = useParams();
  const info = useGuild(guild);
  useTitle('Tickets');
  const { filters, setFilters, cursors, setCursors } = useUrlFilters(['status', 'opener']);
  const list = useLoad<{ tickets: Ticket[]; next: number | null }>(
    guildPath(guild, '/tickets', { ...filters, before: cursors.at(-1), limit: '25' }),
  );
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
          setFilters({ opener: String(new FormData(e.currentTarget).get('opener')).trim() });
        }}
      >
        <SelectField
          id="t-status"
          label="Status"
          value={filters.status}
          options={TICKET_STATUSES}
          onChange={(status) => setFilters({ status })}
        />
        <IdField
          id="t-opener"
          name="opener"
          label="Opened by (member id)"
          value={filters.opener}
          onCommit={(opener) => setFilters({ opener })}
        />
        <button type="submit">Apply</button>
      </form>
      <Loadable
        loading={list.loading}
        error={list.error}
        empty={list.data?.tickets.length === 0}
        emptyText="No tickets match."
      >
        <Table className="tickets" columns={['#', 'Type', 'Opened by', 'Status', 'Claimed by', 'Opened']}>
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
        </Table>
        <Pager cursors={cursors} next={list.data?.next != null ? String(list.data.next) : null} onChange={setCursors} />
      </Loadable>
    </>
  );
}
