import { LEASE_MS } from '@guildhall/shared';
import { eventsOfType, waitFor } from '@guildhall/testkit';
import { CaseModel, type CaseRow, caseId, caseLeases, newCaseRow } from '../src/cases/model';
import { type Harness, startHarness } from './harness';

/**
 * A case as a request stores it just before it acts on the platform, under the request's lease; `lapsed`: the request
 * died a lease's length ago, so its lease has lapsed.
 */
function pendingCase(h: Harness, number: number, action: 'ban' | 'kick', target: string, lapsed: boolean): CaseRow {
  const at = new Date(Date.now() - (lapsed ? LEASE_MS + 5_000 : 1_000));
  return newCaseRow({
    guild: h.seed.id,
    number,
    action,
    target,
    targetName: 'someone',
    moderator: h.seed.ids.moderator,
    moderatorName: 'Mo',
    reason: 'left pending by a crash',
    createdAt: at,
    announced: false,
    lease: caseLeases.newLease(at),
  });
}

describe('cases a crashed request left pending', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('when their request lease lapsed, then the recovery poller settles them: the action is performed once and case.created is emitted; a case whose lease is held stays pending', async () => {
    await CaseModel.create([
      pendingCase(h, 901, 'ban', h.seed.ids.member, true),
      pendingCase(h, 902, 'kick', '999999999999999991', true),
      pendingCase(h, 903, 'ban', h.seed.ids.support, false),
    ]);
    const ban = await waitFor(async () => {
      const row = await CaseModel.findById(caseId(h.seed.id, 901)).lean<CaseRow>();
      return row?.status === 'active' ? row : null;
    });
    expect(ban.history.map((e) => e.change)).toEqual(['created', 'resumed', 'dm', 'active']);
    const bans = h.fake.callsTo('PUT', '/guilds/{guild_id}/bans/{user_id}');
    expect(bans.map((c) => c.path)).toEqual([`/guilds/${h.seed.id}/bans/${h.seed.ids.member}`]);
    expect(bans[0]!.reason).toContain('#901');
    const kick = await waitFor(async () => {
      const row = await CaseModel.findById(caseId(h.seed.id, 902)).lean<CaseRow>();
      return row?.status === 'active' ? row : null;
    });
    expect(kick.failure).toBeNull();
    const created = await waitFor(
      async () => eventsOfType(h.events, 'case.created').map((e) => e.data.case.number),
      (numbers) => numbers.includes(901) && numbers.includes(902),
    );
    expect(created.filter((n) => n === 901)).toHaveLength(1);
    const fresh = await CaseModel.findById(caseId(h.seed.id, 903)).lean<CaseRow>();
    expect(fresh!.status).toBe('pending');
    h.fake.assertNoViolations();
  });
});
