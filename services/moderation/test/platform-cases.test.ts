import { FAKE_BOT_USER_ID } from '@guildhall/platform-simulator';
import { type MemberHistoryReply, newSnowflake, RPC } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { type APIAuditLogEntry, AuditLogEvent } from 'discord-api-types/v10';
import { CaseModel, type CaseRow, newCaseRow, nextCaseNumber } from '../src/cases/model';
import { type Harness, startHarness } from './harness';

describe('cases for actions taken in the platform client', () => {
  let h: Harness;
  let base: string;

  beforeAll(async () => {
    h = await startHarness();
    base = `/api/v1/servers/${h.seed.id}`;
    h.peer.reply<unknown, MemberHistoryReply>(RPC.memberHistory, async () => ({ events: [], deleted: [] }));
  });
  afterAll(() => h.close());

  const casesOf = (target: string) =>
    CaseModel.find({ guild: h.seed.id, target }).sort({ number: 1 }).lean<CaseRow[]>();
  const joined = () => {
    const id = newSnowflake();
    h.fake.memberJoins(h.seed.id, { user: { id, username: `u${id.slice(-4)}` } });
    return id;
  };
  /** The newest audit entry of `type` about `target`, dispatched as the bridge would (again, when called again). */
  const dispatchEntry = async (type: AuditLogEvent, target: string): Promise<APIAuditLogEntry> => {
    const entry = [...h.fake.guild(h.seed.id)!.auditLog]
      .reverse()
      .find((e) => e.action_type === type && e.target_id === target)!;
    await h.dispatch('GUILD_AUDIT_LOG_ENTRY_CREATE', { ...entry, guild_id: h.seed.id });
    return entry;
  };

  it('when a person bans in the client, then one case names them with the reason; a redelivered entry takes no number', async () => {
    const target = joined();
    await h.fake.actAsUser(h.seed.ids.admin).ban(h.seed.id, target, { reason: 'raid' });
    const entry = await dispatchEntry(AuditLogEvent.MemberBanAdd, target);
    const [made] = await waitFor(
      () => casesOf(target),
      (cases) => cases[0]?.announced === true,
    );
    expect(made).toMatchObject({
      action: 'ban',
      moderator: h.seed.ids.admin,
      moderatorName: 'alice',
      reason: 'raid',
      status: 'active',
      origin: 'platform',
      auditEntry: entry.id,
      expiresAt: null,
    });
    expect(h.events.filter((e) => e.type === 'case.created' && e.data.case.target === target)).toHaveLength(1);

    await dispatchEntry(AuditLogEvent.MemberBanAdd, target);
    const kicked = joined();
    await h.fake.actAsUser(h.seed.ids.admin).kick(h.seed.id, kicked);
    await dispatchEntry(AuditLogEvent.MemberKick, kicked);
    const [kick] = await waitFor(
      () => casesOf(kicked),
      (cases) => cases.length > 0,
    );
    expect(kick).toMatchObject({ number: made!.number + 1, reason: 'No reason given on the platform' });
    expect(await casesOf(target)).toHaveLength(1);
  });

  it('when a person times a member out in the client, then the case ends with the timeout, is DMed and supersedes an older timeout case', async () => {
    const target = joined();
    const older = await h.call('POST', `${base}/cases`, {
      body: { target, action: 'timeout', duration: 600, reason: 'first' },
    });
    expect(older.status).toBe(201);
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await h.fake
      .actAsUser(h.seed.ids.admin)
      .editMember(h.seed.id, target, { communication_disabled_until: until }, 'longer');
    const entry = await dispatchEntry(AuditLogEvent.MemberUpdate, target);
    const cases = await waitFor(
      () => casesOf(target),
      (found) => found[1]?.announced === true,
    );
    expect(cases[1]).toMatchObject({ action: 'timeout', reason: 'longer', origin: 'platform', auditEntry: entry.id });
    expect(cases[1]!.expiresAt?.toISOString()).toBe(until);
    expect(cases[1]!.duration).toBe(Math.round((Date.parse(until) - cases[1]!.createdAt.getTime()) / 1000));
    expect(cases[1]!.history.find((e) => e.change === 'dm')?.note).toBe('sent');
    expect(cases[0]).toMatchObject({ status: 'superseded', supersededBy: cases[1]!.number });
  });

  it('when an entry comes again after its case was stored but not announced, then that case is finished once', async () => {
    const target = joined();
    await h.fake.actAsUser(h.seed.ids.admin).ban(h.seed.id, target);
    const entry = [...h.fake.guild(h.seed.id)!.auditLog].at(-1)!;
    const number = await nextCaseNumber(h.seed.id);
    await CaseModel.create(
      newCaseRow({
        guild: h.seed.id,
        number,
        action: 'ban',
        target,
        targetName: 'x',
        moderator: h.seed.ids.admin,
        moderatorName: 'alice',
        reason: 'No reason given on the platform',
        status: 'active',
        origin: 'platform',
        auditEntry: entry.id,
        announced: false,
        lease: { holder: 'a process that died', until: new Date(Date.now() - 1000) },
      }),
    );
    await dispatchEntry(AuditLogEvent.MemberBanAdd, target);
    const cases = await waitFor(
      () => casesOf(target),
      (found) => found[0]?.announced === true,
    );
    expect(cases.map((c) => c.number)).toEqual([number]);
    await waitFor(
      () => h.events.filter((e) => e.type === 'case.created' && e.data.case.number === number),
      (created) => created.length === 1,
    );
  });

  it("when the bot's own ban entry is dispatched, then it makes no case", async () => {
    const target = joined();
    const made = await h.call('POST', `${base}/cases`, { body: { target, action: 'ban', reason: 'spam' } });
    expect(made.status).toBe(201);
    const entry = await dispatchEntry(AuditLogEvent.MemberBanAdd, target);
    expect(entry.user_id).toBe(FAKE_BOT_USER_ID);
    // A person's kick after it in the same guild: once its case exists, the bot's entry was handled before it.
    const kicked = joined();
    await h.fake.actAsUser(h.seed.ids.admin).kick(h.seed.id, kicked);
    await dispatchEntry(AuditLogEvent.MemberKick, kicked);
    await waitFor(
      () => casesOf(kicked),
      (cases) => cases.length > 0,
    );
    expect((await casesOf(target)).map((c) => c.origin ?? 'service')).toEqual(['service']);
  });
});
