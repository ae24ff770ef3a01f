import { FAKE_BOT_USER_ID } from '@guildhall/platform-simulator';
import { eventSubject, type MemberHistoryReply, newSnowflake, RPC } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { AuditLogEvent } from 'discord-api-types/v10';
import { CaseModel, type CaseRow } from '../src/cases/model';
import { type Harness, startHarness } from './harness';

describe('cases lifted outside a revoke', () => {
  let h: Harness;
  let base: string;

  beforeAll(async () => {
    h = await startHarness();
    base = `/api/v1/servers/${h.seed.id}`;
    h.peer.reply<unknown, MemberHistoryReply>(RPC.memberHistory, async () => ({ events: [], deleted: [] }));
  });
  afterAll(() => h.close());

  const create = (target: string, body: Record<string, unknown>) =>
    h.call('POST', `${base}/cases`, { body: { target, reason: 'r', ...body } });
  const recordOf = (target: string) => h.call('GET', `${base}/members/${target}`, { caps: ['cases.read'] });
  const statusOf = (_target: string, number: number) => CaseModel.findOne({ guild: h.seed.id, number }).lean<CaseRow>();
  const undone = (kind: string, target: string, id: string) =>
    h.peer.publish(
      eventSubject('logs', h.seed.id, 'journal.undone'),
      {
        id: `undone-${id}`,
        type: 'journal.undone',
        service: 'logs',
        guild: h.seed.id,
        at: new Date().toISOString(),
        data: { event: id, kind, target, undoneBy: h.seed.ids.admin, undoneByName: 'alice' },
      },
      `undone-${id}`,
    );

  it('a journal undo of a ban marks the ban case revoked, with who and how, and it stops counting', async () => {
    const ban = await create(h.seed.ids.member, { action: 'ban' });
    expect(ban.status).toBe(201);
    expect((await recordOf(h.seed.ids.member)).body.suggestion.why).toContain(`#${ban.body.number}`);
    await undone('member_ban', h.seed.ids.member, '1300000000000000101');
    const revoked = await waitFor(
      () => statusOf(h.seed.ids.member, ban.body.number),
      (c) => c?.status === 'revoked',
    );
    expect(revoked).toMatchObject({ revokedBy: h.seed.ids.admin, revokedByName: 'alice' });
    expect(revoked?.history.at(-1)?.note).toBe('journal undo of event 1300000000000000101');
    const record = await recordOf(h.seed.ids.member);
    expect(record.body.cases.find((c: { number: number }) => c.number === ban.body.number).status).toBe('revoked');
    expect(record.body.suggestion.why).not.toContain(`#${ban.body.number}`);
    expect(h.events.some((e) => e.type === 'case.revoked')).toBe(true);
  });

  it('a journal undo of a timeout marks the timeout case revoked', async () => {
    const timeout = await create(h.seed.ids.support, { action: 'timeout', duration: 3600 });
    expect(timeout.status).toBe(201);
    await undone('member_timeout', h.seed.ids.support, '1300000000000000102');
    const c = await waitFor(
      () => statusOf(h.seed.ids.support, timeout.body.number),
      (x) => x?.status === 'revoked',
    );
    expect(c?.revokedBy).toBe(h.seed.ids.admin);
  });

  /** The next read of the audit log is refused as for a bot without View Audit Log. */
  const auditLogUnreadable = () =>
    h.fake.failNext('GET', '/guilds/{guild_id}/audit-logs', {
      status: 403,
      code: 50013,
      message: 'Missing Permissions',
    });

  it('when the bot may not read the audit log, then an unban dispatch marks the ban case revoked, lifter unknown', async () => {
    const ban = await create(h.seed.ids.support, { action: 'ban' });
    expect(ban.status).toBe(201);
    expect((await statusOf(h.seed.ids.support, ban.body.number))?.status).toBe('active');
    auditLogUnreadable();
    await h.dispatch('GUILD_BAN_REMOVE', {
      guild_id: h.seed.id,
      user: { id: h.seed.ids.support, username: 'sam', discriminator: '0', global_name: null, avatar: null },
    });
    const c = await waitFor(
      () => statusOf(h.seed.ids.support, ban.body.number),
      (x) => x?.status === 'revoked',
    );
    expect(c?.revokedBy).toBeNull();
    expect(c?.history.at(-1)?.note).toBe(
      'unbanned on the platform, not through the service (who did it is unknown: the audit log cannot be read)',
    );
  });

  it("when the bot's own unban is dispatched, then no case is revoked; a person's unban revokes theirs naming them", async () => {
    const kept = newSnowflake();
    const lifted = newSnowflake();
    for (const id of [kept, lifted]) h.fake.memberJoins(h.seed.id, { user: { id, username: `u${id.slice(-4)}` } });
    const keptBan = await create(kept, { action: 'ban' });
    const liftedBan = await create(lifted, { action: 'ban' });
    expect([keptBan.status, liftedBan.status]).toEqual([201, 201]);
    const unban = async (by: string, target: string) => {
      await h.fake.actAsUser(by).unban(h.seed.id, target, 'lifted');
      await h.dispatch('GUILD_BAN_REMOVE', {
        guild_id: h.seed.id,
        user: { id: target, username: 'x', discriminator: '0', global_name: null, avatar: null },
      });
    };
    await unban(FAKE_BOT_USER_ID, kept);
    await unban(h.seed.ids.admin, lifted);
    // One consumer handles a guild's unbans in order: once the second is done, the first was handled.
    const c = await waitFor(
      () => statusOf(lifted, liftedBan.body.number),
      (x) => x?.status === 'revoked',
    );
    expect(c).toMatchObject({ revokedBy: h.seed.ids.admin, revokedByName: 'alice' });
    expect((await statusOf(kept, keptBan.body.number))?.status).toBe('active');
  });

  const auditEntry = (action: AuditLogEvent, target: string, by: string, changes: unknown[] = []) =>
    h.dispatch('GUILD_AUDIT_LOG_ENTRY_CREATE', {
      id: newSnowflake(),
      guild_id: h.seed.id,
      action_type: action,
      user_id: by,
      target_id: target,
      changes,
    });

  it('when an unban the bot could not read is followed by its audit entry, then the revoked case names who unbanned and case.revoked is emitted', async () => {
    const target = h.seed.ids.member;
    const ban = await create(target, { action: 'ban' });
    expect(ban.status).toBe(201);
    auditLogUnreadable();
    await h.dispatch('GUILD_BAN_REMOVE', {
      guild_id: h.seed.id,
      user: { id: target, username: 'pat', discriminator: '0', global_name: null, avatar: null },
    });
    await waitFor(
      () => statusOf(target, ban.body.number),
      (x) => x?.status === 'revoked',
    );
    await auditEntry(AuditLogEvent.MemberBanRemove, target, h.seed.ids.admin);
    const c = await waitFor(
      () => statusOf(target, ban.body.number),
      (x) => x?.revokedBy === h.seed.ids.admin,
    );
    expect(c?.history.at(-1)).toMatchObject({ change: 'revoker', by: h.seed.ids.admin });
    await waitFor(
      () => h.events.find((e) => e.type === 'case.revoked' && e.data.case.number === ban.body.number),
      (e) => e !== undefined,
    );
  });

  it("a timeout removed on the platform revokes the timeout case naming who; the bot's own entries change nothing", async () => {
    const target = newSnowflake();
    h.fake.memberJoins(h.seed.id, { user: { id: target, username: 'tim' } });
    const timeout = await create(target, { action: 'timeout', duration: 3600 });
    expect(timeout.status).toBe(201);
    const cleared = [{ key: 'communication_disabled_until', old_value: new Date().toISOString() }];
    await auditEntry(AuditLogEvent.MemberUpdate, target, FAKE_BOT_USER_ID, cleared);
    await auditEntry(AuditLogEvent.MemberUpdate, target, h.seed.ids.admin, [{ key: 'nick', new_value: 'x' }]);
    await auditEntry(AuditLogEvent.MemberUpdate, target, h.seed.ids.admin, cleared);
    const c = await waitFor(
      () => statusOf(target, timeout.body.number),
      (x) => x?.status === 'revoked',
    );
    expect(c).toMatchObject({ revokedBy: h.seed.ids.admin });
    expect(c?.history.filter((e) => e.change === 'revoked')).toHaveLength(1);
  });
});
