import { Link, useParams } from 'react-router';
import { CASE_ACTIONS, CASE_STATUSES } from '../../../../libs/shared/src/contract/values';
import { guildPath } from '../api';
import { IdField, SelectField, useUrlFilters } from '../components/Filters';
import { MemberSearch } from '../components/MemberSearch';
import { Pager } from '../components/Pager';
import { Badge, Loadable, When } from '../components/Status';
import { Table } from '../components/Table';
import { useLoad, useTitle } from '../hooks';
import { useGuild } from '../session';
import type { Case } from '../types';

/** The member-id filters and the value-list filters of the cases list: query key, label (, values). */
const ID_FILTERS = [
  ['target', 'Member id'],
  ['moderator', 'Moderator id'],
] as const;
const LIST_FILTERS = [
  ['action', 'Action', CASE_ACTIONS],
  ['status', 'Status', CASE_STATUSES],
] as const;

/** Cases of the guild, newest first, filtered by member, moderator, action and status (kept in the URL), paged. */
export function CasesPage() {
  const { guild = '' } = useParams();
  const info = useGuild(guild);
  useTitle('Cases');
  const { filters, setFilters, cursors, setCursors } = useUrlFilters(['target', 'moderator', 'action', 'status']);
  const list = useLoad<{ cases: Case[]; next: number | null }>(
    guildPath(guild, '/cases', { ...filters, before: cursors.at(-1), limit: '25' }),
  );
  const setFilter = (key: keyof typeof filters, value: string) => setFilters({ [key]: value });
  return (
    <>
      <div className="heading">
        <h1>Cases</h1>
        {info?.caps.includes('cases.write') && (
          <Link className="button primary" to={`/guilds/${guild}/cases/new`}>
            New case
          </Link>
        )}
      </div>
      <form
        className="filters"
        aria-label="Filter cases"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          setFilters({ target: String(form.get('target')).trim(), moderator: String(form.get('moderator')).trim() });
        }}
      >
        <MemberSearch
          guild={guild}
          id="f-member-search"
          label="Member by name"
          onPick={(m) => setFilter('target', m.id)}
        />
        {ID_FILTERS.map(([key, label]) => (
          <IdField
            key={`${key}-${filters[key]}`}
            id={`f-${key}`}
            name={key}
            label={label}
            value={filters[key]}
            onCommit={(v) => setFilter(key, v)}
          />
        ))}
        {LIST_FILTERS.map(([key, label, options]) => (
          <SelectField
            key={key}
            id={`f-${key}`}
            label={label}
            value={filters[key]}
            options={options}
            onChange={(v) => setFilter(key, v)}
          />
        ))}
        <button type="submit">Apply</button>
      </form>
      <Loadable
        loading={list.loading}
        error={list.error}
        empty={list.data?.cases.length === 0}
        emptyText="No cases match."
      >
        <CaseTable guild={guild} cases={list.data?.cases ?? []} />
        <Pager cursors={cursors} next={list.data?.next != null ? String(list.data.next) : null} onChange={setCursors} />
      </Loadable>
    </>
  );
}

/** A table of cases linking to each case and member. */
export function CaseTable({ guild, cases }: { guild: string; cases: Case[] }) {
  return (
    <Table className="cases" columns={['#', 'Action', 'Member', 'Moderator', 'Reason', 'Status', 'Created']}>
      {cases.map((c) => (
        <tr key={c.number} data-case={c.number}>
          <td>
            <Link to={`/guilds/${guild}/cases/${c.number}`}>#{c.number}</Link>
          </td>
          <td>{c.action}</td>
          <td>
            <Link to={`/guilds/${guild}/members/${c.target}`}>{c.targetName}</Link>
          </td>
          <td>{c.moderatorName}</td>
          <td className="reason">{c.reason}</td>
          <td>
            <Badge value={c.status} />
          </td>
          <td>
            <When at={c.createdAt} />
          </td>
        </tr>
      ))}
    </Table>
  );
}
