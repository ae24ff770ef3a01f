import { useEffect, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { CASE_ACTIONS } from '../../../../libs/shared/src/contract/values';
import { api, guildPath } from '../api';
import { SelectField } from '../components/Filters';
import { MemberSearch } from '../components/MemberSearch';
import { Problem } from '../components/Status';
import { useAction, useIdempotencyKey, useLoad, useTitle } from '../hooks';
import type { Case, JournalEvent, MemberRecord } from '../types';

const SNOWFLAKE = /^\d{17,20}$/;
const DURATIONS = [
  { label: '10 minutes', seconds: 600 },
  { label: '1 hour', seconds: 3600 },
  { label: '1 day', seconds: 86400 },
  { label: '7 days', seconds: 604800 },
  { label: '28 days', seconds: 2419200 },
];

/**
 * Creates a case: pick the member (by name through the member search, an id, or a recent member from the journal), see who they are and the suggested
 * next action of the escalation ladder (from the member record), choose action, duration and reason. A submission
 * carries an `Idempotency-Key`, the same for a retry of the same form (one case however often it is sent).
 */
export function CaseCreatePage() {
  const { guild = '' } = useParams();
  const [params] = useSearchParams();
  useTitle('New case');
  const navigate = useNavigate();
  const [target, setTarget] = useState(params.get('target') ?? '');
  const [action, setAction] = useState('warn');
  const [duration, setDuration] = useState('');
  const [reason, setReason] = useState('');
  const recent = useLoad<{ events: JournalEvent[] }>(guildPath(guild, '/journal', { kind: 'member_join' }));
  const record = useLoad<MemberRecord>(SNOWFLAKE.test(target) ? guildPath(guild, `/members/${target}`) : null);
  const suggestion = SNOWFLAKE.test(target) ? record.data?.suggestion : undefined;
  useEffect(() => {
    if (!suggestion) return;
    setAction(suggestion.action);
    setDuration(suggestion.duration ? String(suggestion.duration) : '');
  }, [suggestion]);
  const submit = useAction();
  const keys = useIdempotencyKey();
  const members = new Map<string, string>();
  for (const e of recent.data?.events ?? []) if (e.target) members.set(e.target, e.targetName ?? e.target);
  return (
    <>
      <h1>New case</h1>
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          let created: Case | undefined;
          const body = {
            target,
            action,
            reason,
            ...(duration && (action === 'timeout' || action === 'ban') ? { duration: Number(duration) } : {}),
          };
          const ok = await submit.run(async () => {
            created = await api<Case>('POST', guildPath(guild, '/cases'), body, keys.keyFor(body));
          });
          if (!ok) return;
          keys.succeeded();
          if (created) navigate(`/guilds/${guild}/cases/${created.number}`);
        }}
      >
        <MemberSearch
          guild={guild}
          id="target-search"
          label="Find the member by name"
          onPick={(m) => setTarget(m.id)}
        />
        <div className="field">
          <label htmlFor="target">Member (id or pick a recent member)</label>
          <input
            id="target"
            list="recent-members"
            inputMode="numeric"
            autoComplete="off"
            value={target}
            onChange={(e) => setTarget(e.target.value.trim())}
            aria-invalid={submit.error?.forField('target') ? true : undefined}
            aria-describedby="target-info"
          />
          <datalist id="recent-members">
            {[...members].map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </datalist>
          <p id="target-info" className="hint" aria-live="polite">
            {record.loading && SNOWFLAKE.test(target) && 'Looking up…'}
            {record.data && SNOWFLAKE.test(target) && (
              <>
                <strong>{record.data.user.name}</strong> —{' '}
                {record.data.user.inServer ? 'in the server' : 'not in the server'}, {record.data.cases.length} case
                {record.data.cases.length === 1 ? '' : 's'}
              </>
            )}
            {record.error && SNOWFLAKE.test(target) && record.error.message}
            {submit.error?.forField('target') && <span className="error-text"> {submit.error.forField('target')}</span>}
          </p>
        </div>
        {suggestion && (
          <p className="suggestion" data-testid="suggestion">
            Suggested: <strong>{suggestion.action}</strong>
            {suggestion.duration ? ` for ${formatSeconds(suggestion.duration)}` : ''} — {suggestion.why}
          </p>
        )}
        <SelectField id="action" label="Action" value={action} options={CASE_ACTIONS} any={null} onChange={setAction} />
        {(action === 'timeout' || action === 'ban') && (
          <div className="field">
            <label htmlFor="duration">{action === 'ban' ? 'Duration (empty: permanent)' : 'Duration'}</label>
            <select id="duration" value={duration} onChange={(e) => setDuration(e.target.value)}>
              <option value="">{action === 'ban' ? 'Permanent' : 'Choose…'}</option>
              {DURATIONS.map((d) => (
                <option key={d.seconds} value={d.seconds}>
                  {d.label}
                </option>
              ))}
              {duration && !DURATIONS.some((d) => String(d.seconds) === duration) && (
                <option value={duration}>{formatSeconds(Number(duration))}</option>
              )}
            </select>
            {submit.error?.forField('duration') && (
              <p className="error-text">duration: {submit.error.forField('duration')}</p>
            )}
          </div>
        )}
        <div className="field">
          <label htmlFor="reason">Reason</label>
          <textarea
            id="reason"
            value={reason}
            maxLength={512}
            onChange={(e) => setReason(e.target.value)}
            aria-invalid={submit.error?.forField('reason') ? true : undefined}
          />
          {submit.error?.forField('reason') && <p className="error-text">reason: {submit.error.forField('reason')}</p>}
        </div>
        <Problem error={submit.error} />
        <button type="submit" className="primary" disabled={submit.busy}>
          Create case
        </button>
      </form>
    </>
  );
}

/** Seconds as the largest whole unit (e.g. 3600 -> "1 h"). */
export function formatSeconds(s: number): string {
  if (s % 86400 === 0) return `${s / 86400} d`;
  if (s % 3600 === 0) return `${s / 3600} h`;
  if (s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}
