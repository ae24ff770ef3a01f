import { type BridgeService, startBridgeService, startCommandRegistration } from '@guildhall/bridge';
import { type FakePlatform, sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import {
  APPLICATION_COMMANDS,
  COMMAND,
  commandDifferences,
  createLogger,
  createPlatformApi,
  guildCommands,
} from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import type { APIApplicationCommand, RESTPostAPIApplicationCommandsJSONBody } from 'discord-api-types/v10';

const logger = createLogger('commands-test', 'silent');
const TOKEN = 'commands-test-token';
const METRICS_TOKEN = 'commands-test-metrics';
const GLOBAL = '/applications/{application_id}/commands';
const IN_GUILD = '/applications/{application_id}/guilds/{guild_id}/commands';

/** Type and name of each command, sorted: what a member can find in the client. */
const names = (commands: ReadonlyArray<{ type?: number; name: string }>) =>
  commands.map((c) => `${c.type ?? 1}:${c.name}`).sort();

describe('the bridge registers the application commands (against the platform simulator)', () => {
  const ns = testNamespace();
  let fake: FakePlatform;
  let seed: ReturnType<typeof sampleGuild>;
  let service: BridgeService | null = null;
  const api = () => createPlatformApi({ baseUrl: fake.url, token: TOKEN });
  const globalCommands = () => api().applicationCommands.getGlobalCommands(fake.clientId);
  const env = (extra: Record<string, string> = {}) => ({
    PORT: '0',
    LOG_LEVEL: 'silent',
    METRICS_TOKEN,
    NATS_URL: testNatsUrl(),
    NATS_NAMESPACE: ns,
    PLATFORM_API_URL: fake.url,
    PLATFORM_BOT_TOKEN: TOKEN,
    ...extra,
  });
  /** Starts the bridge process's service and waits until its commands' registration is done. */
  const startService = async (extra: Record<string, string> = {}) => {
    service = await startBridgeService(env(extra));
    await service.started;
    return service.commands.done;
  };
  const stopService = async () => {
    await service?.stop();
    service = null;
  };

  beforeAll(async () => {
    fake = await startFakePlatform();
    seed = sampleGuild();
    fake.seedGuild(seed);
  });
  afterEach(stopService);
  afterAll(async () => {
    await fake.close();
    await deleteNamespace(ns);
  });

  it('registers every declared command at the first start, while the bridge forwards dispatches', async () => {
    expect(await globalCommands()).toEqual([]);
    await expect(runKick()).rejects.toMatchObject({ status: 404, code: 10063 }); // nothing registered yet
    const result = await startService();
    expect(result).toMatchObject({ applicationId: fake.clientId, scope: { kind: 'global' }, registered: true });
    expect(result.differences).toHaveLength(APPLICATION_COMMANDS.length);
    expect(fake.callsTo('GET', '/applications/@me')).toHaveLength(1);
    expect(fake.callsTo('PUT', GLOBAL).map((c) => c.status)).toEqual([200]);
    expect(fake.callsTo('PUT', GLOBAL)[0].body).toEqual(APPLICATION_COMMANDS);
    const registered = await globalCommands();
    expect(names(registered)).toEqual(names(APPLICATION_COMMANDS));
    expect(commandDifferences(APPLICATION_COMMANDS, registered)).toEqual([]);
    // what the platform keeps of the declaration: limits, choices, permissions, the guild-only context
    const ban = registered.find((c) => c.name === COMMAND.ban) as APIApplicationCommand;
    expect(ban).toMatchObject({ application_id: fake.clientId, default_member_permissions: '4', contexts: [0] });
    expect(ban.options?.map((o) => o.name)).toEqual(['user', 'reason', 'delete_messages', 'duration']);
    expect(await readyz()).toBe(200);
    fake.assertNoViolations();
  });

  it('registers nothing when restarted with the same declaration', async () => {
    const before = await globalCommands();
    const puts = fake.callsTo('PUT', GLOBAL).length;
    const lists = fake.callsTo('GET', GLOBAL).length;
    const result = await startService();
    expect(result).toMatchObject({ registered: false, differences: [] });
    expect(fake.callsTo('GET', GLOBAL)).toHaveLength(lists + 1);
    expect(fake.callsTo('PUT', GLOBAL)).toHaveLength(puts);
    expect(await globalCommands()).toEqual(before); // same ids, same versions
    expect(await metric('bridge_command_registrations_total', 'outcome="unchanged"')).toBe(1);
    expect(await metric('bridge_commands_in_sync')).toBe(1);
  });

  it('registers a changed declaration again, keeping the ids of the commands it keeps', async () => {
    const before = await globalCommands();
    const changed = APPLICATION_COMMANDS.filter((c) => c.name !== COMMAND.kick).map((c) =>
      c.name === COMMAND.timeout ? { ...c, description: 'Silence a member for a while' } : c,
    ) as RESTPostAPIApplicationCommandsJSONBody[];
    const puts = fake.callsTo('PUT', GLOBAL).length;
    const running = startCommandRegistration({ api: api(), commands: changed, logger });
    const result = await running.done;
    expect(result.registered).toBe(true);
    expect(result.differences).toEqual([`changed ${COMMAND.timeout}: description`, `extra ${COMMAND.kick}`]);
    expect(fake.callsTo('PUT', GLOBAL)).toHaveLength(puts + 1);
    const after = await globalCommands();
    expect(names(after)).toEqual(names(changed));
    const idOf = (list: APIApplicationCommand[], name: string) => list.find((c) => c.name === name)?.id;
    expect(idOf(after, COMMAND.timeout)).toBe(idOf(before, COMMAND.timeout));
    expect(after.find((c) => c.name === COMMAND.timeout)?.description).toBe('Silence a member for a while');
    // no longer registered: the platform offers no /kick, no member can run it, the bot receives nothing
    const interactions: unknown[] = [];
    const off = fake.onDispatch((_guild, t, d) => {
      if (t === 'INTERACTION_CREATE') interactions.push(d);
    });
    await expect(runKick()).rejects.toMatchObject({ status: 404, code: 10063 });
    expect(interactions).toEqual([]);

    // the bridge's next start puts the declaration back
    expect(await startService()).toMatchObject({
      registered: true,
      differences: [`changed ${COMMAND.timeout}: description`, `missing ${COMMAND.kick}`],
    });
    expect(names(await globalCommands())).toEqual(names(APPLICATION_COMMANDS));
    const id = await runKick();
    off();
    expect(interactions).toEqual([
      expect.objectContaining({ id, type: 2, data: expect.objectContaining({ name: COMMAND.kick, type: 1 }) }),
    ]);
  });

  it('retries a failed registration with backoff and never holds up the bridge', async () => {
    await api().applicationCommands.bulkOverwriteGlobalCommands(fake.clientId, []);
    fake.failNext('GET', '/applications/@me', { status: 403, code: 50001, message: 'Missing Access' });
    fake.failNext('PUT', GLOBAL, { status: 400, code: 50035, message: 'Invalid Form Body' });
    const puts = fake.callsTo('PUT', GLOBAL).length;
    const running = startCommandRegistration({ api: api(), logger, firstDelayMs: 20 });
    const result = await running.done;
    expect(result.registered).toBe(true);
    expect(
      fake
        .callsTo('PUT', GLOBAL)
        .slice(puts)
        .map((c) => c.status),
    ).toEqual([400, 200]);
    expect(names(await globalCommands())).toEqual(names(APPLICATION_COMMANDS));

    // the bridge's own registration fails at first: the bridge starts and is ready meanwhile, the registration retries
    fake.failNext('GET', '/applications/@me', { status: 403, code: 50001, message: 'Missing Access' });
    service = await startBridgeService(env());
    await service.started;
    expect(await readyz()).toBe(200);
    await waitFor(
      () => metric('bridge_command_registrations_total', 'outcome="failed"'),
      (failed) => failed === 1,
      10_000,
    );
    await service.commands.done; // retried after 1 s
    expect(await metric('bridge_commands_in_sync')).toBe(1);
    // stopped before it succeeded (the bridge stopping): no more attempts, `done` rejects
    const stopped = startCommandRegistration({
      api: createPlatformApi({ baseUrl: 'http://127.0.0.1:9', token: TOKEN }),
      logger,
    });
    stopped.stop();
    await expect(stopped.done).rejects.toThrow(/stopped/);
  });

  it('in development mode (COMMANDS_GUILD_ID) registers in that guild only, once', async () => {
    const global = await globalCommands();
    const globalPuts = fake.callsTo('PUT', GLOBAL).length;
    const result = await startService({ COMMANDS_GUILD_ID: seed.id });
    expect(result).toMatchObject({ scope: { kind: 'guild', guildId: seed.id }, registered: true });
    expect(fake.callsTo('PUT', IN_GUILD).map((c) => c.path)).toEqual([
      `/applications/${fake.clientId}/guilds/${seed.id}/commands`,
    ]);
    expect(fake.callsTo('PUT', IN_GUILD)[0].body).toEqual(guildCommands(APPLICATION_COMMANDS));
    const inGuild = await api().applicationCommands.getGuildCommands(fake.clientId, seed.id);
    expect(names(inGuild)).toEqual(names(APPLICATION_COMMANDS));
    expect(inGuild.every((c) => c.guild_id === seed.id)).toBe(true);
    expect(fake.callsTo('PUT', GLOBAL)).toHaveLength(globalPuts);
    expect(await globalCommands()).toEqual(global);

    await stopService();
    expect(await startService({ COMMANDS_GUILD_ID: seed.id })).toMatchObject({ registered: false });
    expect(fake.callsTo('PUT', IN_GUILD)).toHaveLength(1);
    await stopService();
    await expect(startBridgeService(env({ COMMANDS_GUILD_ID: 'lantern' }))).rejects.toThrow(/COMMANDS_GUILD_ID/);
  });

  /** The guild's admin runs `/kick` on a member in #general; resolves the interaction id. */
  function runKick(): Promise<string> {
    return fake.actAsUser(seed.ids.admin).runCommand(seed.id, seed.ids.general, COMMAND.kick, {
      options: { member: seed.ids.member, reason: 'spam' },
    });
  }
  /** `/readyz` of the running service. */
  async function readyz(): Promise<number> {
    return (await fetch(`${service?.url}/readyz`)).status;
  }
  /** Metric `name`'s value (with `label`, e.g. `outcome="failed"`) in the running service's `/metrics`; 0 if absent. */
  async function metric(name: string, label = ''): Promise<number> {
    const text = await (
      await fetch(`${service?.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(label));
    return line ? Number(line.split(' ')[1]) : 0;
  }
});
