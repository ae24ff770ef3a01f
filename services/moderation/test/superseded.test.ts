import { LEASE_MS } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { CaseModel, type CaseRow, caseId, caseLeases, newCaseRow, nextCaseNumber } from '../src/cases/model';
import { type Harness, startHarness } from './harness';

/**
 * One live punishment per member and effect, in the service: an accepted appeal of a superseded case lifts nothing, a
 * revoke waits for a newer case still being applied, and an older case a dead request left pending is superseded
 * without a platform call when a newer case holds the effect.
 */
let h: Harness;
let base: string;

beforeAll(async () => {
  h = await startHarness();
  base = `/api/v1/servers/${h.seed.id}`;
});
afterAll(() => h?.close());

const create = (body: unknown) => h.call('POST', `${base}/cases`, { body, name: 'Mo' });
const member = () => h.fake.guild(h.seed.id)!.members.get(h.seed.ids.member)!;

it('when the appeal of a superseded timeout is accepted, then the case is revoked and the member stays timed out under the newer case', async () => {
  const older = await create({ target: h.seed.ids.member, action: 'timeout', reason: 'first', duration: 600 });
  const newer = await create({ target: h.seed.ids.member, action: 'timeout', reason: 'second', duration: 7200 });
  expect([older.status, newer.status]).toEqual([201, 201]);
  const until = member().communication_disabled_until;
  expect(Date.parse(until!)).toBe(Date.parse(newer.body.expiresAt));
  const text = 'The first timeout was for something I did not do, please take it off my record.';
  const appeal = await h.call('POST', `/api/v1/record/${h.seed.id}/appeals`, {
    as: h.seed.ids.member,
    name: 'pat',
    caps: [],
    body: { caseNumber: older.body.number, text },
  });
  expect(appeal.status).toBe(201);
  const from = h.fake.calls.length;
  const decided = await h.call('POST', `${base}/appeals/${appeal.body.id}/decision`, {
    body: { decision: 'accepted', note: 'fair' },
  });
  expect(decided.status).toBe(200);
  expect(h.fake.calls.slice(from).filter((c) => c.method !== 'GET' && c.path.includes(h.seed.ids.member))).toEqual([]);
  expect(member().communication_disabled_until).toBe(until);
  const rows = await CaseModel.find({
    _id: { $in: [older.body.number, newer.body.number].map((n) => caseId(h.seed.id, n)) },
  })
    .sort({ number: 1 })
    .lean<CaseRow[]>();
  expect(rows.map((r) => r.status)).toEqual(['revoked', 'active']);
});

it('when a newer ban of the member is still pending, then revoking the older active ban answers 409 case_busy and lifts nothing', async () => {
  const older = await create({ target: h.seed.ids.support, action: 'ban', reason: 'first' });
  expect(older.body.status).toBe('active');
  const number = older.body.number + 1000;
  await CaseModel.create(
    newCaseRow({
      guild: h.seed.id,
      number,
      action: 'ban',
      target: h.seed.ids.support,
      targetName: 'sam',
      moderator: h.seed.ids.admin,
      moderatorName: 'Ada',
      reason: 'being applied',
      announced: false,
      lease: caseLeases.newLease(),
    }),
  );
  const revoke = await h.call('POST', `${base}/cases/${older.body.number}/revoke`);
  expect(revoke.status).toBe(409);
  expect(revoke.body.code).toBe('case_busy');
  expect(h.fake.guild(h.seed.id)!.bans.has(h.seed.ids.support)).toBe(true);
  expect((await CaseModel.findById(caseId(h.seed.id, older.body.number)).lean<CaseRow>())!.status).toBe('active');
  await CaseModel.deleteOne({ _id: caseId(h.seed.id, number) });
});

it('when a dead request left an older ban pending and a newer ban is active, then the recovery poller supersedes it without a platform call', async () => {
  const target = '999999999999999995';
  h.fake.memberJoins(h.seed.id, { user: { id: target, username: 'late' } });
  // the dead request took its number, then a newer request banned the same member
  const number = await nextCaseNumber(h.seed.id);
  const newer = await create({ target, action: 'ban', reason: 'newer' });
  expect(newer.body).toMatchObject({ status: 'active', number: number + 1 });
  const at = new Date(Date.now() - LEASE_MS - 5_000);
  await CaseModel.create(
    newCaseRow({
      guild: h.seed.id,
      number,
      action: 'ban',
      target,
      targetName: 'late',
      moderator: h.seed.ids.moderator,
      moderatorName: 'Mo',
      reason: 'older, left pending',
      createdAt: at,
      announced: false,
      lease: caseLeases.newLease(at),
    }),
  );
  const resumed = await waitFor(
    () => CaseModel.findById(caseId(h.seed.id, number)).lean<CaseRow>(),
    (row) => row?.status === 'superseded' && row.announced === true,
  );
  expect(resumed!.supersededBy).toBe(newer.body.number);
  expect(
    h.fake.callsTo('PUT', '/guilds/{guild_id}/bans/{user_id}').filter((c) => c.path.endsWith(target)),
  ).toHaveLength(1);
});
