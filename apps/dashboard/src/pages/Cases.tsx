import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { guildPath } from '../api';
import { Pager } from '../components/Pager';
import { Badge, Loadable, When } from '../components/Status';
import { useLoad, useTitle } from '../hooks';
import { useGuild } from '../session';
import type { Case } from '../types';

const ACTIONS = ['warn', 'timeout', 'kick', 'ban'];
const STATUSES = ['pending', 'active', 'expired', 'revoked', 'failed'];

/** Cases of the guild, newest first, filtered by member, moderator, action and status (kept in the URL), paged. */
export function CasesPage() {
  const { guild = '' } = useParams();
  const info = useGuild(guild);
  useTitle('Cases');
  const [params, setParams] = useSearchParams();
  const [cursors, setCursors] = useState<string[]>([]);
  const filters = {
    target: params.get('target') ?? '',
    moderator: params.get('moderator') ?? '',
    action: params.get('action') ?? '',
    status: params.get('status') ?? '',
  };
  const list = useLoad<{ cases: Case[]; next: number | null }>(
    guildPath(guild, '/cases', { ...filters, before: cursors.at(-1), limit: '25' }),
  );
  const setFilters = (changes: Partial<typeof filters>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    setCursors([]);
    setParams(next, { replace: true });
  };
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
        <div className="field">
          <label htmlFor="f-target">Member id</label>
          <input
            id="f-target"
            name="target"
            inputMode="numeric"
            defaultValue={filters.target}
            onBlur={(e) => setFilter('target', e.target.value.trim())}
          />
        </div>
        <div className="field">
          <label htmlFor="f-moderator">Moderator id</label>
          <input
            id="f-moderator"
            name="moderator"
            inputMode="numeric"
            defaultValue={filters.moderator}
            onBlur={(e) => setFilter('moderator', e.target.value.trim())}
          />
        </div>
        <div className="field">
          <label htmlFor="f-action">Action</label>
          <select id="f-action" value={filters.action} onChange={(e) => setFilter('action', e.target.value)}>
            <option value="">Any</option>
            {ACTIONS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="f-status">Status</label>
          <select id="f-status" value={filters.status} onChange={(e) => setFilter('status', e.target.value)}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </div>
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
    <div className="scroll">
      <table className="table cases">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Action</th>
            <th scope="col">Member</th>
            <th scope="col">Moderator</th>
            <th scope="col">Reason</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
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
        </tbody>
      </table>
    </div>
  );
}
