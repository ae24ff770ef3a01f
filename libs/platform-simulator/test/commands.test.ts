import { API } from '@discordjs/core';
import type { DiscordAPIError, REST } from '@discordjs/rest';
import { type FakePlatform, sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import { APPLICATION_COMMANDS } from '@guildhall/shared';
import {
  type APIApplicationCommand,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  InteractionResponseType,
  MessageFlags,
  MessageType,
  PermissionFlagsBits,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  Routes,
} from 'discord-api-types/v10';
import { freshGuild } from './support/freshGuild';

/** Any JSON value a test reads. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary payloads
type Json = any;

/** The platform's time for a test: moved by hand (`now.ms += ...`). */
const now = { ms: Date.parse('2025-06-01T12:00:00Z') };

describe('application commands', () => {
  let fake: FakePlatform;
  let rest: REST;
  let api: API;
  let seed: ReturnType<typeof sampleGuild>;

  beforeAll(async () => {
    fake = await startFakePlatform({ clock: { now: () => new Date(now.ms) } });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    ({ seed, rest } = freshGuild(fake));
    api = new API(rest);
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a DiscordAPIError');
      },
      (err: unknown) => err as DiscordAPIError,
    );
  const chat = (name: string, extra: Partial<RESTPostAPIChatInputApplicationCommandsJSONBody> = {}) => ({
    type: ApplicationCommandType.ChatInput as const,
    name,
    description: `The ${name} command`,
    ...extra,
  });

  describe('registration', () => {
    it('registers the declared commands with ids, versions and the defaults the platform adds', async () => {
      const registered = await api.applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, APPLICATION_COMMANDS);
      expect(registered.map((c) => c.name)).toEqual(APPLICATION_COMMANDS.map((c) => c.name));
      const report = registered.find((c) => c.name === 'Report message')!;
      expect(report).toMatchObject({
        application_id: fake.clientId,
        type: ApplicationCommandType.Message,
        description: '',
        default_member_permissions: null,
        contexts: [0],
        integration_types: [0],
        nsfw: false,
      });
      expect(report.id).toMatch(/^\d{17,20}$/);
      expect(report.version).toMatch(/^\d{17,20}$/);
      expect(registered.find((c) => c.name === 'warn')!.default_member_permissions).toBe('1099511627776');
      expect(await api.applicationCommands.getGlobalCommands(fake.clientId)).toEqual(registered);
      expect(await api.applicationCommands.getGlobalCommand(fake.clientId, report.id)).toEqual(report);
      expect(fake.callsTo('PUT', '/applications/{application_id}/commands')).toHaveLength(1);
      fake.assertNoViolations();
    });

    it('keeps ids and versions when the same commands are put again, and bumps only a changed one', async () => {
      const first = await api.applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, APPLICATION_COMMANDS);
      now.ms += 1000;
      const again = await api.applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, APPLICATION_COMMANDS);
      expect(again).toEqual(first);
      now.ms += 1000;
      const changed = APPLICATION_COMMANDS.map((c) =>
        c.name === 'warn' ? { ...c, description: 'Warn a member (changed)' } : c,
      );
      const third = await api.applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, changed);
      const byName = (list: APIApplicationCommand[], name: string) => list.find((c) => c.name === name)!;
      expect(third.map((c) => c.id)).toEqual(first.map((c) => c.id));
      expect(byName(third, 'warn').version).not.toBe(byName(first, 'warn').version);
      expect(byName(third, 'kick').version).toBe(byName(first, 'kick').version);
      const fewer = await api.applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, changed.slice(0, 2));
      expect(fewer.map((c) => c.id)).toEqual(first.slice(0, 2).map((c) => c.id));
      expect(await api.applicationCommands.getGlobalCommands(fake.clientId)).toHaveLength(2);
    });

    it('creates (201), upserts by name and type (200), edits and deletes one command', async () => {
      const created = (await rest.post(Routes.applicationCommands(fake.clientId), {
        body: chat('ping'),
      })) as APIApplicationCommand;
      const upserted = (await rest.post(Routes.applicationCommands(fake.clientId), {
        body: chat('ping', { description: 'Pong' }),
      })) as APIApplicationCommand;
      expect(upserted.id).toBe(created.id);
      expect(upserted.description).toBe('Pong');
      expect(fake.callsTo('POST', '/applications/{application_id}/commands').map((c) => c.status)).toEqual([201, 200]);
      const edited = await api.applicationCommands.editGlobalCommand(fake.clientId, created.id, {
        description: 'Pang',
      });
      expect(edited).toMatchObject({ id: created.id, name: 'ping', description: 'Pang' });
      await api.applicationCommands.deleteGlobalCommand(fake.clientId, created.id);
      const gone = await refusal(api.applicationCommands.getGlobalCommand(fake.clientId, created.id));
      expect([gone.status, gone.code]).toEqual([404, 10063]);
    });

    it('keeps guild commands per guild, apart from the global ones', async () => {
      const guildCommands = await api.applicationCommands.bulkOverwriteGuildCommands(fake.clientId, seed.id, [
        chat('local'),
      ]);
      expect(guildCommands[0]).toMatchObject({ name: 'local', guild_id: seed.id });
      expect(await api.applicationCommands.getGlobalCommands(fake.clientId)).toEqual([]);
      expect(await api.applicationCommands.getGuildCommands(fake.clientId, seed.id)).toEqual(guildCommands);
      const away = await refusal(api.applicationCommands.getGuildCommands(fake.clientId, '1234567890123456789'));
      expect([away.status, away.code]).toEqual([403, 50001]);
    });

    it("refuses another application's commands and a member registering", async () => {
      const other = await refusal(api.applicationCommands.getGlobalCommands('1234567890123456789'));
      expect([other.status, other.code]).toEqual([403, 20012]);
      await expect(
        fake.actAsUser(seed.ids.owner).request('PUT', Routes.applicationCommands(fake.clientId), [chat('x')]),
      ).rejects.toMatchObject({ status: 403, code: 20012 });
    });

    it('answers the application of the bot at /applications/@me', async () => {
      const application = await api.applications.getCurrent();
      expect(application).toMatchObject({ id: fake.clientId, bot: { id: fake.botUserId } });
    });
  });

  describe('validation', () => {
    const put = (commands: unknown[]) =>
      refusal(rest.put(Routes.applicationCommands(fake.clientId), { body: commands }));
    const firstError = (err: DiscordAPIError) => JSON.stringify(err.rawError);

    it.each([
      ['an uppercase chat input name', [chat('Warn')], '"name"', 'APPLICATION_COMMAND_INVALID_NAME'],
      ['a name with a space', [chat('two words')], '"name"', 'APPLICATION_COMMAND_INVALID_NAME'],
      ['a missing description', [{ type: 1, name: 'bare' }], '"description"', 'BASE_TYPE_BAD_LENGTH'],
      [
        'a described user command',
        [{ type: ApplicationCommandType.User, name: 'Look', description: 'no' }],
        '"description"',
        'APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION_INVALID',
      ],
      [
        'a required option after an optional one',
        [
          chat('order', {
            options: [
              { type: ApplicationCommandOptionType.String, name: 'a', description: 'a' },
              { type: ApplicationCommandOptionType.String, name: 'b', description: 'b', required: true },
            ],
          }),
        ],
        '"required"',
        'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
      ],
      [
        'two options of one name',
        [
          chat('dupe', {
            options: [
              { type: ApplicationCommandOptionType.String, name: 'a', description: 'a' },
              { type: ApplicationCommandOptionType.Integer, name: 'a', description: 'a' },
            ],
          }),
        ],
        '"name"',
        'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS',
      ],
      [
        'two commands of one name and type',
        [chat('same'), chat('same')],
        '"name"',
        'APPLICATION_COMMANDS_DUPLICATE_NAME',
      ],
      [
        '26 choices',
        [
          chat('many', {
            options: [
              {
                type: ApplicationCommandOptionType.Integer,
                name: 'n',
                description: 'n',
                choices: Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: i })),
              },
            ],
          }),
        ],
        '"choices"',
        'BASE_TYPE',
      ],
    ])('refuses %s with 50035 naming the field, changing nothing', async (_what, commands, field, code) => {
      await api.applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, [chat('kept')]);
      const err = await put(commands);
      expect([err.status, err.code]).toEqual([400, 50035]);
      expect(firstError(err)).toContain(field);
      expect(firstError(err)).toContain(code);
      expect((await api.applicationCommands.getGlobalCommands(fake.clientId)).map((c) => c.name)).toEqual(['kept']);
    });

    it('takes the same name for a chat input and a user command, and refuses a sixth user command', async () => {
      const user = (name: string) => ({ type: ApplicationCommandType.User as const, name });
      await api.applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, [chat('same'), { ...user('same') }]);
      const err = await put(['A', 'B', 'C', 'D', 'E', 'F'].map(user));
      expect([err.status, err.code]).toEqual([400, 30032]);
      const created = await refusal(
        Promise.all(
          ['A', 'B', 'C', 'D', 'E', 'F'].map((n) =>
            api.applicationCommands.createGlobalCommand(fake.clientId, user(n)),
          ),
        ),
      );
      expect(created.code).toBe(30032);
    });
  });

  describe('members run commands', () => {
    let created: Array<Record<string, unknown>>;
    let stop: () => void;
    beforeEach(async () => {
      created = [];
      stop = fake.onDispatch((_g, t, d) => {
        if (t === 'INTERACTION_CREATE') created.push(d as Record<string, unknown>);
      });
      await api.applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, APPLICATION_COMMANDS);
    });
    afterEach(() => stop());
    // biome-ignore lint/suspicious/noExplicitAny: a dispatch's payload, read field by field in assertions
    const last = () => created.at(-1) as Record<string, any>;

    it('sends a chat input command with its options, the resolved member and the member permissions', async () => {
      const id = await fake.actAsUser(seed.ids.moderator).runCommand(seed.id, seed.ids.general, 'timeout', {
        options: { member: seed.ids.member, duration: 600, reason: 'spam' },
      });
      const interaction = last();
      const command = (await api.applicationCommands.getGlobalCommands(fake.clientId)).find(
        (c) => c.name === 'timeout',
      )!;
      expect(interaction).toMatchObject({
        id,
        application_id: fake.clientId,
        type: 2,
        guild_id: seed.id,
        channel_id: seed.ids.general,
        channel: { id: seed.ids.general },
        locale: 'en-US',
        guild_locale: 'en-US',
        entitlements: [],
        authorizing_integration_owners: { 0: seed.id },
        context: 0,
        version: 1,
        member: { user: { id: seed.ids.moderator } },
        data: {
          id: command.id,
          name: 'timeout',
          type: 1,
          options: [
            { name: 'member', type: 6, value: seed.ids.member },
            { name: 'duration', type: 4, value: 600 },
            { name: 'reason', type: 3, value: 'spam' },
          ],
        },
      });
      expect(typeof interaction.token).toBe('string');
      expect(BigInt(interaction.member.permissions) & PermissionFlagsBits.ModerateMembers).toBe(
        PermissionFlagsBits.ModerateMembers,
      );
      expect(BigInt(interaction.app_permissions) & PermissionFlagsBits.BanMembers).toBe(PermissionFlagsBits.BanMembers);
      expect(interaction.data.guild_id).toBeUndefined();
      expect(interaction.data.resolved.users[seed.ids.member]).toMatchObject({ id: seed.ids.member, username: 'pat' });
      const member = interaction.data.resolved.members[seed.ids.member];
      expect(member).toMatchObject({ roles: [] });
      expect(member.user).toBeUndefined();
      expect(member.permissions).toMatch(/^\d+$/);
    });

    it('computes the member permissions in the channel with its overwrites', async () => {
      fake.guild(seed.id)!.channels.get(seed.ids.general)!.permission_overwrites = [
        { id: seed.ids.moderatorRole, type: 0, allow: '0', deny: String(PermissionFlagsBits.SendMessages) },
      ];
      await fake.actAsUser(seed.ids.moderator).runCommand(seed.id, seed.ids.general, 'history', {
        options: { user: seed.ids.member },
      });
      expect(BigInt(last().member.permissions) & PermissionFlagsBits.SendMessages).toBe(0n);
    });

    it('sends a subcommand with its options, and autocomplete with the focused option', async () => {
      const mo = fake.actAsUser(seed.ids.moderator);
      await mo.runCommand(seed.id, seed.ids.general, 'case', {
        subcommand: 'reason',
        options: { number: 4, reason: 'typo' },
      });
      expect(last().data.options).toEqual([
        {
          name: 'reason',
          type: 1,
          options: [
            { name: 'number', type: 4, value: 4 },
            { name: 'reason', type: 3, value: 'typo' },
          ],
        },
      ]);
      await mo.autocomplete(seed.id, seed.ids.general, 'case', {
        subcommand: 'show',
        focused: { name: 'number', value: '1' },
      });
      expect(last()).toMatchObject({
        type: 4,
        data: {
          name: 'case',
          options: [{ name: 'show', type: 1, options: [{ name: 'number', type: 4, value: '1', focused: true }] }],
        },
      });
      await expect(
        mo.autocomplete(seed.id, seed.ids.general, 'case', {
          subcommand: 'reason',
          options: { number: 1 },
          focused: { name: 'reason', value: 'x' },
        }),
      ).rejects.toMatchObject({ code: 50035 });
    });

    it('sends user and message commands with their target resolved', async () => {
      const message = await fake.actAsUser(seed.ids.member).sendMessage(seed.ids.general, 'buy cheap coins');
      await fake
        .actAsUser(seed.ids.support)
        .runCommand(seed.id, seed.ids.general, 'Report message', { targetId: message.id });
      expect(last().data).toMatchObject({
        name: 'Report message',
        type: 3,
        target_id: message.id,
        resolved: { messages: { [message.id]: { id: message.id, content: 'buy cheap coins' } } },
      });
      await fake
        .actAsUser(seed.ids.moderator)
        .runCommand(seed.id, seed.ids.general, 'Warn', { targetId: seed.ids.member });
      expect(last().data).toMatchObject({ name: 'Warn', type: 2, target_id: seed.ids.member });
      expect(last().data.resolved.users[seed.ids.member].id).toBe(seed.ids.member);
      expect(last().data.resolved.members[seed.ids.member].permissions).toMatch(/^\d+$/);
    });

    it('runs only registered commands: an unknown one, or a guild command in another guild, is refused', async () => {
      const member = fake.actAsUser(seed.ids.member);
      await expect(member.runCommand(seed.id, seed.ids.general, 'nuke', {})).rejects.toMatchObject({ code: 10063 });
      await api.applicationCommands.bulkOverwriteGuildCommands(fake.clientId, seed.id, [chat('local')]);
      await member.runCommand(seed.id, seed.ids.general, 'local', {});
      expect(last().data).toMatchObject({ name: 'local', guild_id: seed.id });
      const other = sampleGuild({ members: [{ user: { id: seed.ids.member } }] });
      fake.seedGuild(other);
      const channel = [...fake.guild(other.id)!.channels.values()].find((c) => c.type === 0)!.id;
      await expect(member.runCommand(other.id, channel, 'local', {})).rejects.toMatchObject({ code: 10063 });
      await api.applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, []);
      const before = created.length;
      await expect(
        member.runCommand(seed.id, seed.ids.general, 'warn', { options: { member: seed.ids.owner, reason: 'x' } }),
      ).rejects.toMatchObject({ code: 10063 });
      expect(created).toHaveLength(before);
    });

    it('hides a command from members without its default permissions; Administrator and the owner pass', async () => {
      const run = (user: string) =>
        fake
          .actAsUser(user)
          .runCommand(seed.id, seed.ids.general, 'ban', { options: { user: seed.ids.member, reason: 'r' } });
      await expect(run(seed.ids.support)).rejects.toMatchObject({ status: 403, code: 50013 });
      expect(created).toHaveLength(0);
      await run(seed.ids.moderator);
      await run(seed.ids.admin);
      await run(seed.ids.owner);
      expect(created).toHaveLength(3);
    });

    it('refuses options the client would not send', async () => {
      const mo = fake.actAsUser(seed.ids.moderator);
      const at = (options: Record<string, string | number>) =>
        mo.runCommand(seed.id, seed.ids.general, 'timeout', {
          options: { member: seed.ids.member, reason: 'r', ...options },
        });
      await expect(at({ duration: 7 })).rejects.toMatchObject({ code: 50035 });
      await expect(at({ duration: 60, extra: 1 })).rejects.toMatchObject({ code: 50035 });
      await expect(
        mo.runCommand(seed.id, seed.ids.general, 'timeout', { options: { duration: 60, reason: 'r' } }),
      ).rejects.toMatchObject({ code: 50035 });
      await expect(mo.runCommand(seed.id, seed.ids.general, 'case', { options: {} })).rejects.toMatchObject({
        code: 50035,
      });
    });
  });

  describe('responses', () => {
    let token = '';
    let interactionId = '';
    let stop: () => void;
    beforeEach(async () => {
      stop = fake.onDispatch((_g, t, d) => {
        if (t === 'INTERACTION_CREATE') ({ token, id: interactionId } = d as { token: string; id: string });
      });
      await api.applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, APPLICATION_COMMANDS);
      await fake
        .actAsUser(seed.ids.moderator)
        .runCommand(seed.id, seed.ids.general, 'history', { options: { user: seed.ids.member } });
    });
    afterEach(() => stop());
    const callback = (body: unknown) =>
      rest.post(Routes.interactionCallback(interactionId, token), { body, auth: false });

    it('takes a first callback within 3 seconds, and only one', async () => {
      now.ms += 2_900;
      await callback({
        type: InteractionResponseType.ChannelMessageWithSource,
        data: { content: 'ok', flags: MessageFlags.Ephemeral },
      });
      const again = await refusal(
        callback({ type: InteractionResponseType.ChannelMessageWithSource, data: { content: 'x' } }),
      );
      expect([again.status, again.code]).toEqual([400, 40060]);
      const original = await api.interactions.getOriginalReply(fake.clientId, token);
      expect(original).toMatchObject({ content: 'ok', flags: MessageFlags.Ephemeral });
    });

    it('answers a callback after 3 seconds with 404 10062 Unknown interaction', async () => {
      now.ms += 3_001;
      const late = await refusal(callback({ type: InteractionResponseType.DeferredChannelMessageWithSource }));
      expect([late.status, late.code, late.message]).toEqual([404, 10062, 'Unknown interaction']);
    });

    it('applies the deadline to button presses too', async () => {
      const message = (await rest.post(Routes.channelMessages(seed.ids.general), {
        body: {
          content: 'press',
          components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Go', custom_id: 'go' }] }],
        },
      })) as { id: string };
      await fake.actAsUser(seed.ids.member).useComponent(seed.ids.general, message.id, 'go');
      now.ms += 3_500;
      const late = await refusal(callback({ type: InteractionResponseType.DeferredMessageUpdate }));
      expect(late.code).toBe(10062);
    });

    it('refuses follow-ups and @original before the callback', async () => {
      const followUp = await refusal(api.interactions.followUp(fake.clientId, token, { content: 'early' }));
      expect([followUp.status, followUp.code]).toEqual([404, 10015]);
      const edit = await refusal(api.interactions.editReply(fake.clientId, token, { content: 'early' }));
      expect([edit.status, edit.code]).toEqual([404, 10008]);
    });

    it('shows a deferred answer as loading until @original is edited, keeping it ephemeral', async () => {
      await callback({
        type: InteractionResponseType.DeferredChannelMessageWithSource,
        data: { flags: MessageFlags.Ephemeral },
      });
      const loading = await api.interactions.getOriginalReply(fake.clientId, token);
      expect(loading.flags).toBe(MessageFlags.Ephemeral | MessageFlags.Loading);
      now.ms += 10_000;
      const edited = await api.interactions.editReply(fake.clientId, token, { content: 'done' });
      expect(edited).toMatchObject({ content: 'done', flags: MessageFlags.Ephemeral });
      await api.interactions.deleteReply(fake.clientId, token);
      const gone = await refusal(api.interactions.getOriginalReply(fake.clientId, token));
      expect(gone.code).toBe(10008);
    });

    it('sends, edits and deletes follow-ups for 15 minutes, then 401 50027', async () => {
      await callback({ type: InteractionResponseType.DeferredChannelMessageWithSource });
      const followUp = await api.interactions.followUp(fake.clientId, token, {
        content: 'page 1',
        flags: MessageFlags.Ephemeral,
      });
      expect(followUp.flags).toBe(MessageFlags.Ephemeral);
      const edited = await api.interactions.editReply(fake.clientId, token, { content: 'page 2' }, followUp.id);
      expect(edited).toMatchObject({ id: followUp.id, content: 'page 2' });
      expect(await api.webhooks.getMessage(fake.clientId, token, followUp.id)).toMatchObject({
        content: 'page 2',
      });
      await api.interactions.deleteReply(fake.clientId, token, followUp.id);
      const missing = await refusal(api.webhooks.getMessage(fake.clientId, token, followUp.id));
      expect(missing.code).toBe(10008);
      now.ms += 14 * 60_000;
      await api.interactions.followUp(fake.clientId, token, { content: 'still here' });
      now.ms += 60_001;
      const expired = await refusal(api.interactions.followUp(fake.clientId, token, { content: 'too late' }));
      expect([expired.status, expired.code]).toEqual([401, 50027]);
      const edit = await refusal(api.interactions.editReply(fake.clientId, token, { content: 'too late' }));
      expect(edit.code).toBe(50027);
      fake.assertNoViolations();
    });
  });

  describe('response messages', () => {
    /** Every dispatch of the test, in order. */
    let seen: Array<{ t: string; d: Record<string, unknown> }>;
    let stop: () => void;
    beforeEach(async () => {
      seen = [];
      stop = fake.onDispatch((_g, t, d) => seen.push({ t, d: d as Record<string, unknown> }));
      await api.applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, APPLICATION_COMMANDS);
    });
    afterEach(() => stop());
    const interaction = (id: string) =>
      seen.find((s) => s.t === 'INTERACTION_CREATE' && s.d.id === id)!.d as { id: string; token: string } & Json;
    const dispatched = (t: string, id: string) => seen.filter((s) => s.t === t && s.d.id === id);
    const buttons = [{ type: 1, components: [{ type: 2, style: 1, label: 'Next', custom_id: 'next' }] }];
    /** The moderator runs /history; resolves its INTERACTION_CREATE. */
    const runHistory = async () =>
      interaction(
        await fake
          .actAsUser(seed.ids.moderator)
          .runCommand(seed.id, seed.ids.general, 'history', { options: { user: seed.ids.member } }),
      );
    const answer = (i: { id: string; token: string }, body: unknown) =>
      rest.post(Routes.interactionCallback(i.id, i.token), { body, auth: false });
    const channelIds = async () =>
      ((await api.channels.getMessages(seed.ids.general)) as Array<{ id: string }>).map((m) => m.id);

    it('keeps an ephemeral answer out of the channel, and lets only its user press its buttons (flags 64 in the press)', async () => {
      const run = await runHistory();
      await answer(run, {
        type: InteractionResponseType.ChannelMessageWithSource,
        data: { content: 'page 1', flags: MessageFlags.Ephemeral, components: buttons },
      });
      const message = fake.interactionResponse(run.id)!;
      expect(message).toMatchObject({
        content: 'page 1',
        flags: MessageFlags.Ephemeral,
        channel_id: seed.ids.general,
        webhook_id: fake.clientId,
        type: MessageType.ChatInputCommand,
        interaction_metadata: { id: run.id, type: 2, user: { id: seed.ids.moderator } },
      });
      expect(dispatched('MESSAGE_CREATE', message.id)).toHaveLength(0);
      expect(await channelIds()).not.toContain(message.id);
      const stranger = await refusal(
        fake.actAsUser(seed.ids.member).useComponent(seed.ids.general, message.id, 'next'),
      );
      expect(stranger.code).toBe(10008);

      const press = interaction(
        await fake.actAsUser(seed.ids.moderator).useComponent(seed.ids.general, message.id, 'next'),
      );
      expect(press).toMatchObject({
        type: 3,
        data: { custom_id: 'next', component_type: 2 },
        message: { id: message.id, flags: MessageFlags.Ephemeral, content: 'page 1' },
        member: { user: { id: seed.ids.moderator } },
      });
      await answer(press, {
        type: InteractionResponseType.UpdateMessage,
        data: { content: 'page 2', components: [] },
      });
      expect(fake.interactionResponse(run.id)).toMatchObject({ id: message.id, content: 'page 2', components: [] });
      expect(await api.interactions.getOriginalReply(fake.clientId, press.token)).toMatchObject({
        id: message.id,
        content: 'page 2',
      });
      expect(dispatched('MESSAGE_UPDATE', message.id)).toHaveLength(0);
    });

    it('posts a non-ephemeral answer in the channel with interaction_metadata, and sends its edits and deletion', async () => {
      const run = await runHistory();
      await answer(run, { type: InteractionResponseType.DeferredChannelMessageWithSource });
      const message = fake.interactionResponse(run.id)!;
      const [created] = dispatched('MESSAGE_CREATE', message.id);
      expect(created.d).toMatchObject({
        channel_id: seed.ids.general,
        guild_id: seed.id,
        flags: MessageFlags.Loading,
        application_id: fake.clientId,
        webhook_id: fake.clientId,
        author: { id: fake.botUserId },
        type: MessageType.ChatInputCommand,
        interaction_metadata: { id: run.id, type: 2, user: { id: seed.ids.moderator } },
      });
      expect(await channelIds()).toContain(message.id);
      await api.interactions.editReply(fake.clientId, run.token, { content: 'done', components: buttons });
      expect(dispatched('MESSAGE_UPDATE', message.id).at(-1)!.d).toMatchObject({ content: 'done', flags: 0 });

      const press = interaction(
        await fake.actAsUser(seed.ids.member).useComponent(seed.ids.general, message.id, 'next'),
      );
      expect(press.message).toMatchObject({ id: message.id, content: 'done' });
      await answer(press, { type: InteractionResponseType.DeferredMessageUpdate });
      await api.interactions.editReply(fake.clientId, press.token, { content: 'edited by the press' });
      expect((await api.channels.getMessage(seed.ids.general, message.id)).content).toBe('edited by the press');
      expect(dispatched('MESSAGE_UPDATE', message.id).at(-1)!.d).toMatchObject({ content: 'edited by the press' });

      await api.interactions.deleteReply(fake.clientId, run.token);
      expect(dispatched('MESSAGE_DELETE', message.id)).toHaveLength(1);
      expect(await channelIds()).not.toContain(message.id);
    });

    it('shows follow-ups as the answer does: ephemeral ones to the user only, with usable buttons', async () => {
      const run = await runHistory();
      await answer(run, {
        type: InteractionResponseType.DeferredChannelMessageWithSource,
        data: { flags: MessageFlags.Ephemeral },
      });
      const original = fake.interactionResponse(run.id)!;
      const hidden = await api.interactions.followUp(fake.clientId, run.token, {
        content: 'only you',
        flags: MessageFlags.Ephemeral,
        components: buttons,
      });
      const shown = await api.interactions.followUp(fake.clientId, run.token, { content: 'everyone' });
      expect(hidden.interaction_metadata).toMatchObject({ id: run.id, original_response_message_id: original.id });
      expect(dispatched('MESSAGE_CREATE', hidden.id)).toHaveLength(0);
      expect(dispatched('MESSAGE_CREATE', shown.id)).toHaveLength(1);
      expect(await channelIds()).toEqual(expect.arrayContaining([shown.id]));
      expect(await channelIds()).not.toContain(hidden.id);
      const press = interaction(
        await fake.actAsUser(seed.ids.moderator).useComponent(seed.ids.general, hidden.id, 'next'),
      );
      expect(press.message).toMatchObject({ id: hidden.id, flags: MessageFlags.Ephemeral });
      await api.interactions.deleteReply(fake.clientId, run.token, hidden.id);
      const gone = await refusal(fake.actAsUser(seed.ids.moderator).useComponent(seed.ids.general, hidden.id, 'next'));
      expect(gone.code).toBe(10008);
      fake.assertNoViolations();
    });
  });
});
