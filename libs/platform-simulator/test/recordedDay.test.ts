import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRecordedLine } from '@guildhall/bridge';
import {
  DayClock,
  type DrivenDayFacts,
  dayNdjson,
  driveGuildDay,
  type FakePlatform,
  FIXTURE_IDS,
  recentDayStart,
  recordGuildDay,
  startFakePlatform,
  TICKET_TYPE_ID,
} from '@guildhall/platform-simulator';
import { createPlatformApi } from '@guildhall/shared';
import {
  AuditLogEvent,
  ChannelType,
  type GatewayDispatchEvents,
  type GatewayDispatchPayload,
  InteractionType,
} from 'discord-api-types/v10';

const file = join(__dirname, '..', '..', '..', 'fixtures', 'guild-day.ndjson');
const recorded = readFileSync(file, 'utf8');
const payloads = recorded
  .trimEnd()
  .split('\n')
  .map((l) => JSON.parse(l) as GatewayDispatchPayload);
const of = <T extends `${GatewayDispatchEvents}`>(t: T) =>
  payloads.filter((p): p is Extract<GatewayDispatchPayload, { t: T }> => p.t === t);
const audits = () => of('GUILD_AUDIT_LOG_ENTRY_CREATE').map((p) => p.d);
const audit = (type: AuditLogEvent, target: string) =>
  audits().filter((a) => a.action_type === type && a.target_id === target);

describe('recorded guild day fixture (a bot connected to a driven simulator)', () => {
  let facts: DrivenDayFacts;

  beforeAll(async () => {
    const again = await recordGuildDay();
    facts = again.facts;
    expect(dayNdjson(again.payloads)).toBe(recorded);
  }, 180_000);

  it('is what re-recording gives, byte for byte (regenerate with recordedDay/cli.js when the day changes)', () => {
    expect(facts.forumPost).toMatch(/^[1-9][0-9]+$/);
    expect(Buffer.byteLength(recorded)).toBeLessThan(5 * 1024 * 1024);
    expect(recorded).not.toMatch(/127\.0\.0\.1/);
  });

  it('is the same when the day is driven in two parts (play(count), then the rest)', async () => {
    const inParts = await recordGuildDay({ firstPart: 1000 });
    expect(inParts.facts).toEqual(facts);
    expect(dayNdjson(inParts.payloads)).toBe(recorded);
  }, 180_000);

  it('is a valid gateway session: dispatch payloads with sequence numbers rising by one from 2', () => {
    const lines = recorded.trimEnd().split('\n');
    lines.forEach((line, i) => {
      const parsed = parseRecordedLine(line);
      expect(parsed.ok).toBe(true);
      expect(Object.keys(JSON.parse(line))).toEqual(['t', 's', 'op', 'd']);
      expect(payloads[i].s).toBe(i + 2);
    });
    expect(payloads[0].t).toBe('GUILD_CREATE');
  });

  it('opens with the guild: roles, categories, a forum with tags, only the bot as member, then the member chunk', () => {
    const g = of('GUILD_CREATE')[0].d;
    expect(g.id).toBe(FIXTURE_IDS.guild);
    expect(g.owner_id).toBe(FIXTURE_IDS.owner);
    expect(g.roles.map((r) => r.id)).toEqual(expect.arrayContaining(Object.values(FIXTURE_IDS.roles)));
    expect(g.channels.filter((c) => c.type === ChannelType.GuildCategory)).toHaveLength(4);
    const forum = g.channels.find((c) => c.id === FIXTURE_IDS.channels.suggestions);
    expect(forum && 'available_tags' in forum ? forum.available_tags.map((t) => t.name) : []).toEqual([
      'Idea',
      'Bug',
      'Planned',
      'Done',
    ]);
    expect(g.large).toBe(true);
    expect(g.member_count).toBe(60);
    expect(g.members.map((m) => m.user.id)).toEqual([FIXTURE_IDS.bot]);
    expect(g.threads.map((t) => t.id)).toEqual([FIXTURE_IDS.olderPost]);
    const [chunk] = of('GUILD_MEMBERS_CHUNK');
    expect(chunk.s).toBe(3);
    expect(chunk.d).toMatchObject({ guild_id: g.id, chunk_index: 0, chunk_count: 1, nonce: 'guild-day' });
    expect(chunk.d.members).toHaveLength(60);
  });

  it('opens with the guild as it is at the start: every change of the day comes after GUILD_CREATE', () => {
    const g = of('GUILD_CREATE')[0].d;
    expect(g.roles.map((r) => r.id)).not.toContain(facts.eventTeamRole);
    expect(g.roles.map((r) => r.id)).toContain(facts.deletedRole);
    expect(g.channels.map((c) => c.id)).not.toContain(facts.createdChannel);
    expect(g.channels.map((c) => c.id)).toContain(facts.deletedChannel);
    expect(g.channels.find((c) => c.id === FIXTURE_IDS.channels.general)).toHaveProperty('topic', 'Say hi!');
    expect(g.description).toBe('A friendly place for players of all kinds.');
    expect(g.emojis.map((e) => e.id)).not.toContain(facts.createdEmoji);
    expect(g.emojis.map((e) => e.id)).toContain(facts.deletedEmoji);
    expect(g.emojis.find((e) => e.id === facts.renamedEmoji.id)?.name).toBe(facts.renamedEmoji.from);
    const members = of('GUILD_MEMBERS_CHUNK')[0].d.members;
    expect(members.find((m) => m.user.id === facts.nickname.user)?.nick ?? null).toBeNull();
    for (const id of facts.eventTeam)
      expect(members.find((m) => m.user.id === id)?.roles).not.toContain(facts.eventTeamRole);
    const dayStart = Date.parse('2025-03-14T00:00:00Z');
    for (const entry of audits())
      expect(Number(BigInt(entry.id) >> 22n) + 1420070400000).toBeGreaterThanOrEqual(dayStart);
  });

  it('contains the nickname change, the topic change, the emoji rename and the role grants, each with its audit entry', () => {
    const nick = of('GUILD_MEMBER_UPDATE').filter((p) => p.d.user.id === facts.nickname.user);
    expect(nick.map((p) => p.d.nick)).toEqual([facts.nickname.nick]);
    expect(audit(AuditLogEvent.MemberUpdate, facts.nickname.user)[0]).toMatchObject({
      user_id: facts.nickname.user,
      changes: [{ key: 'nick', new_value: facts.nickname.nick }],
    });

    const topic = of('CHANNEL_UPDATE').filter((p) => p.d.id === FIXTURE_IDS.channels.general);
    expect(topic.map((p) => ('topic' in p.d ? p.d.topic : undefined))).toEqual([facts.generalTopic]);
    expect(audit(AuditLogEvent.ChannelUpdate, FIXTURE_IDS.channels.general)[0]).toMatchObject({
      user_id: FIXTURE_IDS.admin,
      changes: [{ key: 'topic', old_value: 'Say hi!', new_value: facts.generalTopic }],
    });

    const emojiNames = of('GUILD_EMOJIS_UPDATE').map(
      (p) => p.d.emojis.find((e) => e.id === facts.renamedEmoji.id)?.name,
    );
    expect(emojiNames).toEqual([facts.renamedEmoji.from, facts.renamedEmoji.to, facts.renamedEmoji.to]);
    expect(audit(AuditLogEvent.EmojiUpdate, facts.renamedEmoji.id)[0]).toMatchObject({
      user_id: FIXTURE_IDS.admin,
      changes: [{ key: 'name', old_value: facts.renamedEmoji.from, new_value: facts.renamedEmoji.to }],
    });

    expect(facts.eventTeam).toHaveLength(3);
    for (const id of facts.eventTeam) {
      expect(of('GUILD_MEMBER_UPDATE').some((p) => p.d.user.id === id && p.d.roles.includes(facts.eventTeamRole))).toBe(
        true,
      );
      expect(audit(AuditLogEvent.MemberRoleUpdate, id)[0]).toMatchObject({
        user_id: FIXTURE_IDS.admin,
        changes: [{ key: '$add', new_value: [{ id: facts.eventTeamRole, name: 'Event Team' }] }],
      });
    }
    const memberGrants = audits().filter(
      (a) =>
        a.action_type === AuditLogEvent.MemberRoleUpdate &&
        a.changes?.some((c) => c.key === '$add' && JSON.stringify(c.new_value).includes(FIXTURE_IDS.roles.member)),
    );
    expect(memberGrants.length).toBeGreaterThanOrEqual(13);
    expect(new Set(memberGrants.map((a) => a.user_id))).toEqual(new Set([FIXTURE_IDS.admin]));
  });

  it('only edits, deletes and reacts to messages that exist, and only members present post', () => {
    const present = new Set(of('GUILD_MEMBERS_CHUNK').flatMap((c) => c.d.members.map((m) => m.user.id)));
    const live = new Set<string>();
    for (const p of payloads) {
      if (p.t === 'GUILD_MEMBER_ADD') present.add(p.d.user.id);
      if (p.t === 'GUILD_MEMBER_REMOVE') present.delete(p.d.user.id);
      if (p.t === 'MESSAGE_CREATE') {
        if (!p.d.webhook_id) expect(present.has(p.d.author.id)).toBe(true);
        expect(p.d.guild_id).toBe(FIXTURE_IDS.guild);
        live.add(p.d.id);
      }
      if (p.t === 'MESSAGE_UPDATE') {
        expect(live.has(p.d.id)).toBe(true);
        expect(Date.parse(p.d.edited_timestamp ?? '')).toBeGreaterThan(Date.parse(p.d.timestamp));
      }
      if (p.t === 'MESSAGE_DELETE') expect(live.delete(p.d.id)).toBe(true);
      if (p.t === 'MESSAGE_DELETE_BULK') for (const id of p.d.ids) expect(live.delete(id)).toBe(true);
      if (p.t === 'MESSAGE_REACTION_ADD')
        expect(live.has(p.d.message_id) || p.d.message_id === FIXTURE_IDS.panelMessage).toBe(true);
    }
  });

  it('covers a day: thousands of messages with replies, mentions, attachments and bot posts', () => {
    const messages = of('MESSAGE_CREATE');
    expect(messages.length).toBeGreaterThan(2000);
    expect(messages.filter((m) => m.d.referenced_message).length).toBeGreaterThan(100);
    expect(messages.filter((m) => m.d.mentions.length).length).toBeGreaterThan(50);
    expect(messages.filter((m) => m.d.attachments.length).length).toBeGreaterThan(50);
    expect(messages.filter((m) => m.d.author.bot).length).toBeGreaterThanOrEqual(6);
    const first = Date.parse(messages[0].d.timestamp);
    const last = Date.parse(messages[messages.length - 1].d.timestamp);
    expect(last - first).toBeGreaterThan(23 * 3600_000);
    expect(of('MESSAGE_UPDATE').length).toBeGreaterThan(100);
    expect(of('MESSAGE_DELETE').length).toBeGreaterThan(50);
    expect(of('MESSAGE_DELETE_BULK')[0].d.ids).toHaveLength(12);
  });

  it('records moderation with matching audit-log entries (ban, kick, timeout, bulk delete, unban)', () => {
    const entry = (type: AuditLogEvent, target: string) => audit(type, target)[0];
    expect(of('GUILD_BAN_ADD').map((p) => p.d.user.id)).toEqual([facts.bannedByModerator, facts.bannedByBot]);
    expect(entry(AuditLogEvent.MemberBanAdd, facts.bannedByModerator)?.user_id).toBe(FIXTURE_IDS.moderator);
    expect(entry(AuditLogEvent.MemberBanAdd, facts.bannedByBot)?.user_id).toBe(FIXTURE_IDS.bot);
    expect(entry(AuditLogEvent.MemberKick, facts.kicked)?.reason).toBe('Alt account of a banned user');
    expect(entry(AuditLogEvent.MemberBanRemove, facts.unbanned)?.user_id).toBe(FIXTURE_IDS.admin);
    const timeout = entry(AuditLogEvent.MemberUpdate, facts.timedOut.user);
    expect(timeout?.changes).toEqual([{ key: 'communication_disabled_until', new_value: facts.timedOut.until }]);
    const update = of('GUILD_MEMBER_UPDATE').find((p) => p.d.user.id === facts.timedOut.user);
    expect(update?.d.communication_disabled_until).toBe(facts.timedOut.until);
    expect(entry(AuditLogEvent.MessageBulkDelete, FIXTURE_IDS.channels.general)?.options?.count).toBe('12');
    const types = new Set(audits().map((a) => a.action_type));
    for (const t of [1, 10, 11, 12, 20, 22, 23, 24, 25, 30, 31, 32, 50, 60, 61, 62, 72, 73, 110, 111])
      expect(types).toContain(t);
    for (const t of ['GUILD_ROLE_CREATE', 'GUILD_ROLE_UPDATE', 'GUILD_ROLE_DELETE', 'CHANNEL_CREATE'] as const)
      expect(of(t)).toHaveLength(1);
    expect(of('CHANNEL_DELETE')[0].d.id).toBe(FIXTURE_IDS.channels.oldMemes);
    expect(of('GUILD_EMOJIS_UPDATE')).toHaveLength(3);
    expect(of('GUILD_UPDATE')[0].d.description).toMatch(/Game night every Friday/);
  });

  it('has a tagged forum post with its starter message and votes, and a ticket panel button then modal', () => {
    const [thread] = of('THREAD_CREATE');
    expect(thread.d).toMatchObject({ id: facts.forumPost, parent_id: FIXTURE_IDS.channels.suggestions });
    expect(thread.d.applied_tags).toEqual([FIXTURE_IDS.tags.idea]);
    const starter = of('MESSAGE_CREATE').find((m) => m.d.id === thread.d.id);
    expect(starter?.d.channel_id).toBe(thread.d.id);
    const votes = of('MESSAGE_REACTION_ADD').filter((r) => r.d.message_id === thread.d.id);
    expect(votes.filter((v) => v.d.emoji.name === '👍')).toHaveLength(9);
    expect(of('THREAD_UPDATE')[0].d.applied_tags).toEqual([FIXTURE_IDS.tags.idea, FIXTURE_IDS.tags.planned]);

    const [button, modal] = of('INTERACTION_CREATE').map((p) => p.d);
    expect(button.type).toBe(InteractionType.MessageComponent);
    expect(button.data).toEqual({ custom_id: `ticket:open:${TICKET_TYPE_ID}`, component_type: 2 });
    expect(button.member?.user.id).toBe(facts.ticketOpener);
    expect(modal.type).toBe(InteractionType.ModalSubmit);
    expect(modal.data).toMatchObject({ custom_id: `ticket:form:${TICKET_TYPE_ID}` });
  });
});

describe('fixture guild day driven while the bot is away', () => {
  const clock = new DayClock();
  let fake: FakePlatform;
  let facts: DrivenDayFacts;
  let took: number;

  beforeAll(async () => {
    fake = await startFakePlatform({ clock: { now: () => clock.now() } });
    const started = Date.now();
    facts = await driveGuildDay(fake, recentDayStart(), clock);
    took = Date.now() - started;
    clock.release();
  }, 60_000);
  afterAll(() => fake.close());

  it('does not wait for a member request or a ticket form no bot can send', () => {
    expect(fake.gateway.memberRequests).toBe(0);
    expect(took).toBeLessThan(15_000);
  });

  it('answers REST calls about the guild as the day left it', async () => {
    const platform = createPlatformApi({ baseUrl: fake.url, token: 'fixture-test' });
    const owner = await platform.guilds.getMember(FIXTURE_IDS.guild, FIXTURE_IDS.owner);
    expect(owner.user.id).toBe(FIXTURE_IDS.owner);
    const joiner = facts.joined.find((id) => id !== facts.spammer)!;
    expect((await platform.guilds.getMember(FIXTURE_IDS.guild, joiner)).roles).toContain(FIXTURE_IDS.roles.member);
    await expect(platform.guilds.getMember(FIXTURE_IDS.guild, facts.kicked)).rejects.toMatchObject({ status: 404 });
    expect((await platform.guilds.getMember(FIXTURE_IDS.guild, facts.nickname.user)).nick).toBe(facts.nickname.nick);
    const channels = await platform.guilds.getChannels(FIXTURE_IDS.guild);
    expect(channels.map((c) => c.id)).toEqual(
      expect.arrayContaining([FIXTURE_IDS.channels.suggestions, facts.createdChannel]),
    );
    expect(channels.map((c) => c.id)).not.toContain(FIXTURE_IDS.channels.oldMemes);
    expect(channels.find((c) => c.id === FIXTURE_IDS.channels.general)).toHaveProperty('topic', facts.generalTopic);
    const bans = (await platform.guilds.getMemberBans(FIXTURE_IDS.guild)).map((b) => b.user.id);
    expect(bans).toEqual(expect.arrayContaining([facts.bannedByBot, facts.bannedByModerator]));
    expect(bans).not.toContain(facts.unbanned);
    expect(bans).toHaveLength(3);
    const emojis = await platform.guilds.getEmojis(FIXTURE_IDS.guild);
    expect(emojis.find((e) => e.id === facts.renamedEmoji.id)?.name).toBe(facts.renamedEmoji.to);
    const thread = await platform.channels.get(facts.forumPost);
    expect(thread.type).toBe(ChannelType.PublicThread);
    fake.assertNoViolations();
  });
});
