/**
 * Audit-log grouping of single message deletions, as Discord does it: one moderator deleting one author's messages in
 * one channel makes ONE MESSAGE_DELETE (72) entry whose `options.count` grows, and GUILD_AUDIT_LOG_ENTRY_CREATE is
 * sent only when the entry is created (discord-api-docs issue 5911).
 */
import {
  type FakePlatform,
  MESSAGE_DELETE_GROUP_MS,
  sampleGuild,
  startFakePlatform,
} from '@guildhall/platform-simulator';
import { type APIAuditLogEntry, AuditLogEvent } from 'discord-api-types/v10';

describe('simulator: MESSAGE_DELETE audit entries are grouped per moderator, author and channel', () => {
  let fake: FakePlatform;
  let now = Date.now();
  let seed: ReturnType<typeof sampleGuild>;
  const created: APIAuditLogEntry[] = [];

  beforeAll(async () => {
    fake = await startFakePlatform({ clock: { now: () => new Date(now) } });
    seed = sampleGuild();
    fake.seedGuild(seed);
    fake.onDispatch((_guild, t, d) => {
      if (t === 'GUILD_AUDIT_LOG_ENTRY_CREATE') created.push(d as APIAuditLogEntry);
    });
  });
  afterAll(() => fake.close());

  const entries = async () => {
    const answer = (await fake
      .actAsUser(seed.ids.owner)
      .request('GET', `/guilds/${seed.id}/audit-logs?action_type=${AuditLogEvent.MessageDelete}`)) as {
      audit_log_entries: APIAuditLogEntry[];
    };
    return answer.audit_log_entries;
  };
  const say = (user: string, channel: string) => fake.actAsUser(user).sendMessage(channel, 'hello');

  it('when a moderator deletes three messages of one author in one channel, then one entry counts 3 and one dispatch was sent', async () => {
    const mod = fake.actAsUser(seed.ids.owner);
    for (let i = 0; i < 3; i++) {
      const message = await say(seed.ids.member, seed.ids.general);
      await mod.deleteMessage(seed.ids.general, message.id, 'spam');
    }
    const list = await entries();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      user_id: seed.ids.owner,
      target_id: seed.ids.member,
      reason: 'spam',
      options: { channel_id: seed.ids.general, count: '3' },
    });
    expect(created.filter((e) => e.action_type === AuditLogEvent.MessageDelete)).toHaveLength(1);
    expect(created[0]).toMatchObject({ id: list[0]?.id, options: { count: '1' } });
  });

  it('when the author, the channel or the time window differs, then a new entry is created and dispatched', async () => {
    const mod = fake.actAsUser(seed.ids.owner);
    const before = (await entries()).length;
    const elsewhere = await say(seed.ids.member, seed.ids.modLog);
    await mod.deleteMessage(seed.ids.modLog, elsewhere.id);
    const byAdmin = await say(seed.ids.admin, seed.ids.general);
    await mod.deleteMessage(seed.ids.general, byAdmin.id);
    now += MESSAGE_DELETE_GROUP_MS + 1;
    const later = await say(seed.ids.member, seed.ids.general);
    await mod.deleteMessage(seed.ids.general, later.id);
    const list = await entries();
    expect(list).toHaveLength(before + 3);
    expect(list.slice(0, 3).map((e) => e.options?.count)).toEqual(['1', '1', '1']);
    expect(created.filter((e) => e.action_type === AuditLogEvent.MessageDelete)).toHaveLength(before + 3);
  });
});
