import { API } from '@discordjs/core';
import type { DiscordAPIError, REST } from '@discordjs/rest';
import { type FakePlatform, type sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import { APPLICATION_COMMANDS } from '@guildhall/shared';
import {
  type APIApplicationCommand,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  Routes,
} from 'discord-api-types/v10';
import { freshGuild } from './support/freshGuild';

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
});
