import { type FakePlatform, sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import { assertAllModelled } from '@guildhall/testkit';
import { Routes } from 'discord-api-types/v10';

describe('assertAllModelled (what startSystem().stop() checks)', () => {
  let fake: FakePlatform;
  let warn: jest.SpyInstance;
  const seed = sampleGuild();

  beforeAll(async () => {
    warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    fake = await startFakePlatform();
    fake.seedGuild(seed);
  });
  afterAll(async () => {
    warn.mockRestore();
    await fake.close();
  });

  const bot = (method: string, path: string) =>
    fetch(`${fake.url}/v10${path}`, { method, headers: { authorization: 'Bot test-token' } });

  it('When every call was to a modelled route, then it passes', async () => {
    expect((await bot('GET', Routes.guild(seed.id))).status).toBe(200);
    expect(() => assertAllModelled(fake)).not.toThrow();
  });

  it('When the simulator answered 501, then it throws naming each route with its number of calls', async () => {
    expect((await bot('GET', Routes.guildInvites(seed.id))).status).toBe(501);
    expect((await bot('GET', Routes.guildInvites(seed.id))).status).toBe(501);
    expect((await bot('GET', Routes.guildIntegrations(seed.id))).status).toBe(501);
    expect(() => assertAllModelled(fake)).toThrow(
      'The platform simulator answered 501 to 3 call(s) of routes it does not model ' +
        '(model them in libs/platform-simulator/src/routes):\n' +
        '- GET /guilds/{guild_id}/invites (2 calls)\n' +
        '- GET /guilds/{guild_id}/integrations (1 call)',
    );
  });
});
