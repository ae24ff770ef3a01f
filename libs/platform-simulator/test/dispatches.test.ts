import { DiscordAPIError, REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { type FakePlatform, sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import { waitFor } from '@guildhall/testkit';
import {
  type APIChannel,
  type APIEmoji,
  type APIMessage,
  type APIRole,
  AuditLogEvent,
  ChannelType,
  type GatewayDispatchPayload,
  GatewayIntentBits,
  OverwriteType,
  Routes,
} from 'discord-api-types/v10';

type Named<T extends string> = Extract<GatewayDispatchPayload, { t: T }>;

const PNG = 'data:image/png;base64,iVBORw0KGgo=';

describe('simulator: REST mutations emit the dispatches and audit entries Discord emits', () => {
  let fake: FakePlatform;
  let rest: REST;
  let manager: WebSocketManager;
  let seed: ReturnType<typeof sampleGuild>;
  const received: GatewayDispatchPayload[] = [];
  const of = <T extends `${GatewayDispatchPayload['t']}`>(t: T) => received.filter((p): p is Named<T> => p.t === t);
  const audits = (action: AuditLogEvent) =>
    of('GUILD_AUDIT_LOG_ENTRY_CREATE').filter((p) => p.d.action_type === action);
  const next = <T extends `${GatewayDispatchPayload['t']}`>(t: T, count = 1) =>
    waitFor(
      () => of(t),
      (list) => list.length >= count,
    );

  beforeAll(async () => {
    fake = await startFakePlatform();
    rest = new REST({ api: fake.url, version: '10', retries: 0 }).setToken('test-token');
    manager = new WebSocketManager({
      token: 'test-token',
      intents:
        GatewayIntentBits.Guilds |
        GatewayIntentBits.GuildMembers |
        GatewayIntentBits.GuildModeration |
        GatewayIntentBits.GuildExpressions |
        GatewayIntentBits.GuildMessages |
        GatewayIntentBits.GuildMessageReactions |
        GatewayIntentBits.GuildWebhooks |
        GatewayIntentBits.MessageContent,
      rest,
    });
    manager.on(WebSocketShardEvents.Dispatch, (payload) => received.push(payload));
    await manager.connect();
    await waitFor(() => of('READY')[0]);
  });
  afterAll(async () => {
    await manager.destroy();
    await fake.close();
  });
  beforeEach(() => {
    fake.reset({ resetData: true });
    seed = sampleGuild();
    fake.seedGuild(seed);
    received.length = 0;
  });

  it('member edits: timeout -> GUILD_MEMBER_UPDATE + audit 24 with the change; role grant -> audit 25 $add', async () => {
    const until = new Date(Date.now() + 3600_000).toISOString();
    await rest.patch(Routes.guildMember(seed.id, seed.ids.member), {
      body: { communication_disabled_until: until },
      reason: 'cool down',
    });
    await rest.put(Routes.guildMemberRole(seed.id, seed.ids.member, seed.ids.supportRole));
    const updates = await next('GUILD_MEMBER_UPDATE', 2);
    expect(updates[0].d).toMatchObject({ guild_id: seed.id, communication_disabled_until: until });
    expect(updates[1].d.roles).toEqual([seed.ids.supportRole]);
    await waitFor(() => audits(AuditLogEvent.MemberRoleUpdate)[0]);
    expect(audits(AuditLogEvent.MemberUpdate)[0].d).toMatchObject({
      target_id: seed.ids.member,
      user_id: fake.botUserId,
      reason: 'cool down',
      changes: [{ key: 'communication_disabled_until', new_value: until }],
    });
    expect(audits(AuditLogEvent.MemberRoleUpdate)[0].d.changes).toEqual([
      { key: '$add', new_value: [{ id: seed.ids.supportRole, name: 'Support' }] },
    ]);
  });

  it('channels: create/edit/delete -> CHANNEL_* + audit 10/11/12; forum tag edit -> CHANNEL_UPDATE', async () => {
    const created = (await rest.post(Routes.guildChannels(seed.id), {
      body: { name: 'new-room', type: ChannelType.GuildText },
    })) as APIChannel;
    await rest.patch(Routes.channel(created.id), { body: { topic: 'fresh' } });
    await rest.patch(Routes.channel(seed.ids.forum), { body: { available_tags: [{ name: 'Solved' }] } });
    await rest.delete(Routes.channel(created.id), { reason: 'cleanup' });
    const [create] = await next('CHANNEL_CREATE');
    const updates = await next('CHANNEL_UPDATE', 2);
    const [deleted] = await next('CHANNEL_DELETE');
    expect(create.d).toMatchObject({ id: created.id, name: 'new-room', guild_id: seed.id });
    expect(updates[0].d).toMatchObject({ id: created.id, topic: 'fresh' });
    expect(updates[1].d).toMatchObject({
      id: seed.ids.forum,
      available_tags: [expect.objectContaining({ name: 'Solved' })],
    });
    expect(deleted.d.id).toBe(created.id);
    await waitFor(() => audits(AuditLogEvent.ChannelDelete)[0]);
    expect(audits(AuditLogEvent.ChannelCreate)[0].d.changes).toEqual(
      expect.arrayContaining([{ key: 'name', new_value: 'new-room' }]),
    );
    expect(audits(AuditLogEvent.ChannelUpdate)[0].d.changes).toEqual([{ key: 'topic', new_value: 'fresh' }]);
    expect(audits(AuditLogEvent.ChannelDelete)[0].d).toMatchObject({ target_id: created.id, reason: 'cleanup' });
  });

  it('threads: create -> THREAD_CREATE (newly_created) + audit 110', async () => {
    const thread = (await rest.post(Routes.threads(seed.ids.general), {
      body: { name: 'side chat', type: ChannelType.PublicThread },
    })) as APIChannel;
    const [create] = await next('THREAD_CREATE');
    expect(create.d).toMatchObject({ id: thread.id, parent_id: seed.ids.general, newly_created: true });
    await waitFor(() => audits(AuditLogEvent.ThreadCreate)[0]);
  });

  it('messages: create/edit/delete/bulk -> MESSAGE_*; only deleting someone else’s message is audited (72)', async () => {
    const own = (await rest.post(Routes.channelMessages(seed.ids.general), { body: { content: 'hi' } })) as APIMessage;
    await rest.patch(Routes.channelMessage(seed.ids.general, own.id), { body: { content: 'hello' } });
    await rest.delete(Routes.channelMessage(seed.ids.general, own.id));
    const theirs = await fake.actAsUser(seed.ids.member).sendMessage(seed.ids.general, 'rude');
    const other = await fake.actAsUser(seed.ids.member).sendMessage(seed.ids.general, 'also rude');
    const third = await fake.actAsUser(seed.ids.member).sendMessage(seed.ids.general, 'very rude');
    await rest.delete(Routes.channelMessage(seed.ids.general, theirs.id), { reason: 'rule 1' });
    await rest.post(Routes.channelBulkDelete(seed.ids.general), { body: { messages: [other.id, third.id] } });
    const creates = await next('MESSAGE_CREATE', 4);
    expect(creates[1].d).toMatchObject({ content: 'rude', guild_id: seed.id, author: { id: seed.ids.member } });
    expect(creates[1].d.member).toBeDefined();
    expect((await next('MESSAGE_UPDATE'))[0].d).toMatchObject({ id: own.id, content: 'hello' });
    expect((await next('MESSAGE_DELETE', 2)).map((p) => p.d.id)).toEqual([own.id, theirs.id]);
    expect((await next('MESSAGE_DELETE_BULK'))[0].d.ids).toEqual([other.id, third.id]);
    await waitFor(() => audits(AuditLogEvent.MessageBulkDelete)[0]);
    expect(audits(AuditLogEvent.MessageDelete).map((p) => p.d)).toEqual([
      expect.objectContaining({
        target_id: seed.ids.member,
        reason: 'rule 1',
        options: { channel_id: seed.ids.general, count: '1' },
      }),
    ]);
  });

  it('message edits append uploaded files; `attachments` keeps only the listed ones and drops the rest from the CDN', async () => {
    const file = (name: string) => ({ name, data: Buffer.from(name), contentType: 'text/plain' });
    const sent = (await rest.post(Routes.channelMessages(seed.ids.general), {
      body: { content: 'files' },
      files: [file('one.txt')],
    })) as APIMessage;
    const appended = (await rest.patch(Routes.channelMessage(seed.ids.general, sent.id), {
      body: { content: 'files' },
      files: [file('two.txt')],
    })) as APIMessage;
    expect(appended.attachments.map((a) => a.filename)).toEqual(['one.txt', 'two.txt']);
    const [one, two] = appended.attachments;
    expect(await (await fetch(two!.url)).text()).toBe('two.txt');
    const replaced = (await rest.patch(Routes.channelMessage(seed.ids.general, sent.id), {
      body: { attachments: [{ id: two!.id }, { id: '0' }] },
      files: [file('three.txt')],
    })) as APIMessage;
    expect(replaced.attachments.map((a) => a.filename)).toEqual(['two.txt', 'three.txt']);
    expect((await fetch(one!.url)).status).toBe(404);
    expect((await fetch(two!.url)).status).toBe(200);
    const updates = await waitFor(
      () => of('MESSAGE_UPDATE').filter((p) => p.d.id === sent.id),
      (list) => list.length >= 2,
    );
    expect(updates[1]!.d.attachments?.map((a) => a.filename)).toEqual(['two.txt', 'three.txt']);
    await expect(
      fake.actAsUser(seed.ids.member).editMessage(seed.ids.general, sent.id, { flags: 4 }, [file('x.txt')]),
    ).rejects.toMatchObject({ code: 50005 });
  });

  it('expressions and roles: GUILD_EMOJIS_UPDATE + audit 60/62, GUILD_ROLE_* + audit 30/31/32', async () => {
    const emoji = (await rest.post(Routes.guildEmojis(seed.id), { body: { name: 'wave', image: PNG } })) as APIEmoji;
    await rest.delete(Routes.guildEmoji(seed.id, emoji.id!));
    const updates = await next('GUILD_EMOJIS_UPDATE', 2);
    expect(updates[0].d.emojis.map((e) => e.name)).toEqual(['wave']);
    expect(updates[1].d.emojis).toEqual([]);
    const role = (await rest.post(Routes.guildRoles(seed.id), {
      body: { name: 'Event Team', permissions: '1024' },
    })) as APIRole;
    await rest.patch(Routes.guildRole(seed.id, role.id), { body: { name: 'Events' } });
    await rest.delete(Routes.guildRole(seed.id, role.id));
    expect((await next('GUILD_ROLE_CREATE'))[0].d.role).toMatchObject({ id: role.id, permissions: '1024' });
    expect((await next('GUILD_ROLE_UPDATE'))[0].d.role.name).toBe('Events');
    expect((await next('GUILD_ROLE_DELETE'))[0].d.role_id).toBe(role.id);
    await waitFor(() => audits(AuditLogEvent.RoleDelete)[0]);
    expect(audits(AuditLogEvent.EmojiCreate)[0].d.changes).toEqual([
      { key: 'name', new_value: 'wave' },
      { key: 'roles', new_value: [] },
    ]);
    expect(audits(AuditLogEvent.EmojiDelete)[0].d.target_id).toBe(emoji.id);
    expect(audits(AuditLogEvent.RoleUpdate)[0].d.changes).toEqual([
      { key: 'name', old_value: 'Event Team', new_value: 'Events' },
    ]);
  });

  it('acts as a user: a moderator’s ban is audited with their user_id; a member without MANAGE_CHANNELS gets 50013 and nothing is emitted', async () => {
    await fake.actAsUser(seed.ids.moderator).ban(seed.id, seed.ids.member, { reason: 'by hand' });
    await waitFor(() => audits(AuditLogEvent.MemberBanAdd)[0]);
    expect(audits(AuditLogEvent.MemberBanAdd)[0].d).toMatchObject({ user_id: seed.ids.moderator, reason: 'by hand' });
    expect(of('GUILD_BAN_ADD')).toHaveLength(1);
    received.length = 0;
    await expect(fake.actAsUser(seed.ids.support).deleteChannel(seed.ids.general)).rejects.toMatchObject({
      code: 50013,
    });
    await expect(fake.actAsUser(seed.ids.admin).deleteChannel(seed.ids.modLog, 'nuke')).resolves.toMatchObject({
      id: seed.ids.modLog,
    });
    await waitFor(() => audits(AuditLogEvent.ChannelDelete)[0]);
    expect(of('CHANNEL_DELETE').map((p) => p.d.id)).toEqual([seed.ids.modLog]);
    expect(audits(AuditLogEvent.ChannelDelete)[0].d.user_id).toBe(seed.ids.admin);
  });

  it('webhooks: create/delete need Manage Webhooks -> WEBHOOKS_UPDATE + audit 50/52 with type, name, channel', async () => {
    await expect(fake.actAsUser(seed.ids.support).createWebhook(seed.ids.general, 'x')).rejects.toMatchObject({
      code: 50013,
    });
    const admin = fake.actAsUser(seed.ids.admin);
    const hook = await admin.createWebhook(seed.ids.general, 'Deploys', 'ci');
    expect(hook).toMatchObject({ type: 1, name: 'Deploys', channel_id: seed.ids.general, guild_id: seed.id });
    expect(typeof hook.token).toBe('string');
    await waitFor(() => audits(AuditLogEvent.WebhookCreate)[0]);
    expect(of('WEBHOOKS_UPDATE').map((p) => p.d)).toEqual([{ guild_id: seed.id, channel_id: seed.ids.general }]);
    expect(audits(AuditLogEvent.WebhookCreate)[0].d).toMatchObject({
      user_id: seed.ids.admin,
      target_id: hook.id,
      reason: 'ci',
      changes: [
        { key: 'type', new_value: 1 },
        { key: 'name', new_value: 'Deploys' },
        { key: 'channel_id', new_value: seed.ids.general },
      ],
    });
    expect(await admin.request('GET', Routes.channelWebhooks(seed.ids.general))).toEqual([hook]);
    await admin.request('DELETE', Routes.webhook(hook.id));
    await waitFor(() => audits(AuditLogEvent.WebhookDelete)[0]);
    expect(audits(AuditLogEvent.WebhookDelete)[0].d.changes).toContainEqual({ key: 'name', old_value: 'Deploys' });
    expect(await admin.request('GET', Routes.guildWebhooks(seed.id))).toEqual([]);
    await expect(admin.createWebhook(seed.ids.category, 'x')).rejects.toMatchObject({ code: 50024 });
  });

  it('executing an incoming webhook posts to its channel as the webhook: MESSAGE_CREATE with webhook_id, no member', async () => {
    const hook = await fake.actAsUser(seed.ids.admin).createWebhook(seed.ids.general, 'Patch Notes');
    const plain = new REST({ api: fake.url, version: '10', retries: 0 });
    const wrong = await plain
      .post(Routes.webhook(hook.id, 'not-the-token'), { body: { content: 'x' }, auth: false })
      .catch((err: DiscordAPIError) => err);
    expect((wrong as DiscordAPIError).code).toBe(50027);
    const posted = (await plain.post(Routes.webhook(hook.id, hook.token), {
      body: { content: 'Patch 4.2 is live', username: 'Release Bot' },
      query: new URLSearchParams({ wait: 'true' }),
      auth: false,
    })) as APIMessage;
    expect(posted).toMatchObject({
      channel_id: seed.ids.general,
      content: 'Patch 4.2 is live',
      webhook_id: hook.id,
      author: { id: hook.id, username: 'Release Bot', discriminator: '0000', bot: true },
    });
    await plain.post(Routes.webhook(hook.id, hook.token), { body: { content: 'again' }, auth: false });
    expect(fake.callsTo('POST', '/webhooks/{webhook_id}/{webhook_token}').map((c) => c.status)).toEqual([
      401, 200, 204,
    ]);
    const created = await next('MESSAGE_CREATE', 2);
    expect(created[0].d).toMatchObject({ id: posted.id, guild_id: seed.id, webhook_id: hook.id });
    expect(created[0].d).not.toHaveProperty('member');
    expect(created[1].d.content).toBe('again');
    expect(
      fake
        .guild(seed.id)!
        .messages.get(seed.ids.general)!
        .map((m) => m.id),
    ).toContain(posted.id);
  });

  it('a member clicks a button of the bot’s message -> INTERACTION_CREATE 3; the bot’s modal, submitted -> INTERACTION_CREATE 5', async () => {
    const panel = (await rest.post(Routes.channelMessages(seed.ids.general), {
      body: {
        content: 'Need help?',
        components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Open', custom_id: 'ticket:open:1' }] }],
      },
    })) as APIMessage;
    const member = fake.actAsUser(seed.ids.member);
    await expect(member.useComponent(seed.ids.general, panel.id, 'ticket:open:2')).rejects.toMatchObject({
      code: 50035,
    });
    await expect(member.submitModal('ticket:form:1', {})).rejects.toMatchObject({ code: 50035 });
    const clicked = await member.useComponent(seed.ids.general, panel.id, 'ticket:open:1');
    const [button] = await next('INTERACTION_CREATE');
    expect(button.d).toMatchObject({
      id: clicked,
      type: 3,
      guild_id: seed.id,
      channel_id: seed.ids.general,
      data: { custom_id: 'ticket:open:1', component_type: 2 },
      message: { id: panel.id },
      member: { user: { id: seed.ids.member } },
    });
    expect(typeof button.d.member?.permissions).toBe('string');
    await rest.post(Routes.interactionCallback(button.d.id, button.d.token), {
      body: {
        type: 9,
        data: {
          custom_id: 'ticket:form:1',
          title: 'Questions',
          components: [
            { type: 1, components: [{ type: 4, custom_id: 'ticket:answer:0', label: 'What?', style: 1 }] },
            { type: 1, components: [{ type: 4, custom_id: 'ticket:answer:1', label: 'Why?', style: 2 }] },
          ],
        },
      },
      auth: false,
    });
    const submitted = await member.submitModal('ticket:form:1', { 'ticket:answer:0': 'I cannot see #events' });
    const modal = (await next('INTERACTION_CREATE', 2))[1];
    expect(modal.d).toMatchObject({ id: submitted, type: 5, message: { id: panel.id } });
    expect(modal.d.data).toEqual({
      custom_id: 'ticket:form:1',
      components: [
        { type: 1, components: [{ type: 4, custom_id: 'ticket:answer:0', value: 'I cannot see #events' }] },
        { type: 1, components: [{ type: 4, custom_id: 'ticket:answer:1', value: '' }] },
      ],
    });
    await expect(member.submitModal('ticket:form:1', {})).rejects.toMatchObject({ code: 50035 });
  });

  it('members join, react and leave: GUILD_MEMBER_ADD, MESSAGE_REACTION_ADD/REMOVE, GUILD_MEMBER_REMOVE without audit', async () => {
    const joined = fake.memberJoins(seed.id, { user: { id: '1300000000000000001', username: 'newbie' } });
    expect(fake.guild(seed.id)!.members.has(joined.user.id)).toBe(true);
    const newbie = fake.actAsUser(joined.user.id);
    const message = await newbie.sendMessage(seed.ids.general, 'hello all');
    await fake.actAsUser(seed.ids.member).react(seed.ids.general, message.id, '👍');
    await fake.actAsUser(seed.ids.member).unreact(seed.ids.general, message.id, '👍');
    await newbie.leaveGuild(seed.id);
    expect((await next('GUILD_MEMBER_ADD'))[0].d).toMatchObject({ guild_id: seed.id, user: { username: 'newbie' } });
    expect((await next('MESSAGE_REACTION_ADD'))[0].d).toMatchObject({
      user_id: seed.ids.member,
      message_id: message.id,
      emoji: { id: null, name: '👍' },
    });
    await next('MESSAGE_REACTION_REMOVE');
    expect((await next('GUILD_MEMBER_REMOVE'))[0].d.user.id).toBe(joined.user.id);
    expect(of('GUILD_AUDIT_LOG_ENTRY_CREATE')).toEqual([]);
  });

  it('accepts permission bitfields as strings, as on the wire (role permissions, overwrite allow/deny)', async () => {
    const channel = (await rest.patch(Routes.channel(seed.ids.general), {
      body: {
        permission_overwrites: [{ id: seed.ids.member, type: OverwriteType.Member, allow: '1024', deny: '2048' }],
      },
    })) as APIChannel & { permission_overwrites: unknown[] };
    expect(channel.permission_overwrites).toEqual([
      { id: seed.ids.member, type: OverwriteType.Member, allow: '1024', deny: '2048' },
    ]);
    const refused = await rest
      .post(Routes.guildRoles(seed.id), { body: { name: 'x', permissions: 'lots' } })
      .catch((err: DiscordAPIError) => err);
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect((refused as DiscordAPIError).code).toBe(50035);
  });
});
