import { eventsOfType, waitFor } from '@guildhall/testkit';
import { CaseModel, type CaseRow, caseId, newCaseRow } from '../src/cases/model';
import { ABANDONED_AFTER_MS } from '../src/cases/resumePendingCases';
import { type Harness, startHarness } from './harness';

/** A case as a request stores it just before it acts on the platform, `ageMs` ago. */
function pendingCase(h: Harness, number: number, action: 'ban' | 'kick', target: string, ageMs: number): CaseRow {
  return newCaseRow({
    guild: h.seed.id,
    number,
    action,
    target,
    targetName: 'someone',
    moderator: h.seed.ids.moderator,
    moderatorName: 'Mo',
    reason: 'left pending by a crash',
    createdAt: new Date(Date.now() - ageMs),
  });
}

describe('cases a crashed request left pending', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('are settled by the recovery poller: the action is performed once and case.created is emitted', async () => {
    const abandoned = ABANDONED_AFTER_MS + 5_000;
    await CaseModel.create([
      pendingCase(h, 901, 'ban', h.seed.ids.member, abandoned),
      pendingCase(h, 902, 'kick', '999999999999999991', abandoned),
      pendingCase(h, 903, 'ban', h.seed.ids.support, 1_000),
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
