import { type FakePlatform, sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { type APIAuditLogEntry, AuditLogEvent } from 'discord-api-types/v10';

/**
 * What a moderator's ban, kick, timeout and unban made in the platform's own client (`fake.actAsUser`) emit, as
 * Discord does and as moderation's cases from the client rely on: one GUILD_AUDIT_LOG_ENTRY_CREATE each, with the
 * moderator as `user_id`, the member as `target_id`, the client's reason, and for a timeout the MEMBER_UPDATE (24)
 * change of `communication_disabled_until` (`new_value` when set or changed, `old_value` when there was one, no
 * `new_value` when removed).
 */
describe('moderation actions in the client', () => {
  let fake: FakePlatform;
  let seed: ReturnType<typeof sampleGuild>;
  const entries: Array<APIAuditLogEntry & { guild_id: string }> = [];

  beforeAll(async () => {
    fake = await startFakePlatform();
    seed = sampleGuild();
    fake.seedGuild(seed);
    fake.onDispatch((_guild, t, d) => {
      if (t === 'GUILD_AUDIT_LOG_ENTRY_CREATE') entries.push(d as APIAuditLogEntry & { guild_id: string });
    });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    entries.length = 0;
  });

  it('when a moderator bans, kicks and unbans, then each is one entry (22, 20, 23) naming them, with the reason given', async () => {
    const as = fake.actAsUser(seed.ids.moderator);
    await as.ban(seed.id, seed.ids.member, { reason: 'raid' });
    await as.unban(seed.id, seed.ids.member);
    await as.kick(seed.id, seed.ids.support, 'alt account');
    expect(
      entries.map(({ action_type, user_id, target_id, reason, guild_id }) => ({
        action_type,
        user_id,
        target_id,
        reason,
        guild_id,
      })),
    ).toEqual([
      {
        action_type: AuditLogEvent.MemberBanAdd,
        user_id: seed.ids.moderator,
        target_id: seed.ids.member,
        reason: 'raid',
        guild_id: seed.id,
      },
      {
        action_type: AuditLogEvent.MemberBanRemove,
        user_id: seed.ids.moderator,
        target_id: seed.ids.member,
        reason: undefined,
        guild_id: seed.id,
      },
      {
        action_type: AuditLogEvent.MemberKick,
        user_id: seed.ids.moderator,
        target_id: seed.ids.support,
        reason: 'alt account',
        guild_id: seed.id,
      },
    ]);
    expect(entries[1]).not.toHaveProperty('reason');
  });

  it('when a moderator sets, changes and removes a timeout, then each is a MEMBER_UPDATE entry with the old and new end', async () => {
    const as = fake.actAsUser(seed.ids.admin);
    const first = new Date(Date.now() + 600_000).toISOString();
    const second = new Date(Date.now() + 3_600_000).toISOString();
    const target = newSnowflake();
    fake.memberJoins(seed.id, { user: { id: target, username: 'tim' } });
    await as.editMember(seed.id, target, { communication_disabled_until: first }, 'cool down');
    await as.editMember(seed.id, target, { communication_disabled_until: second }, 'longer');
    await as.editMember(seed.id, target, { communication_disabled_until: null });
    expect(entries.map((e) => [e.action_type, e.user_id, e.target_id, e.reason, e.changes])).toEqual([
      [
        AuditLogEvent.MemberUpdate,
        seed.ids.admin,
        target,
        'cool down',
        [{ key: 'communication_disabled_until', new_value: first }],
      ],
      [
        AuditLogEvent.MemberUpdate,
        seed.ids.admin,
        target,
        'longer',
        [{ key: 'communication_disabled_until', old_value: first, new_value: second }],
      ],
      [
        AuditLogEvent.MemberUpdate,
        seed.ids.admin,
        target,
        undefined,
        [{ key: 'communication_disabled_until', old_value: second }],
      ],
    ]);
  });
});
