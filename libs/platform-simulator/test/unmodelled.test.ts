import { DiscordAPIError, HTTPError, type REST } from '@discordjs/rest';
import { DiscordError, type FakePlatform, type sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import { Routes } from 'discord-api-types/v10';
import { freshGuild } from './support/freshGuild';

describe('routes the simulator does not model', () => {
  let fake: FakePlatform;
  let rest: REST;
  let seed: ReturnType<typeof sampleGuild>;
  let warn: jest.SpyInstance;

  beforeAll(async () => {
    fake = await startFakePlatform();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    ({ seed, rest } = freshGuild(fake));
    warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(() => warn.mockRestore());

  /** The raw answer of a bot call (the REST client turns a 5xx into an HTTPError without its body). */
  const answer = async (method: string, path: string) => {
    const res = await fetch(`${fake.url}/v10${path}`, { method, headers: { authorization: 'Bot test-token' } });
    return { status: res.status, body: await res.json() };
  };

  it('When a documented route is not modelled, then it answers 501 naming the route, counts it and warns once', async () => {
    const before = fake.unmodelled.length;
    const first = await answer('GET', Routes.guildInvites(seed.id));
    expect(first).toEqual({
      status: 501,
      body: { message: 'GET /guilds/{guild_id}/invites is not modelled by the simulator', code: 0 },
    });
    const second = await rest.get(Routes.guildInvites(seed.id)).catch((err: unknown) => err);
    expect(second).toBeInstanceOf(HTTPError);
    expect((second as HTTPError).status).toBe(501);

    expect(fake.unmodelled.slice(before)).toEqual([
      { method: 'GET', route: '/guilds/{guild_id}/invites', at: expect.any(Date) },
      { method: 'GET', route: '/guilds/{guild_id}/invites', at: expect.any(Date) },
    ]);
    expect(fake.callsTo('GET', '/guilds/{guild_id}/invites').map((c) => c.status)).toEqual([501, 501]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toContain('GET /guilds/{guild_id}/invites is not modelled by the simulator');
    fake.assertNoViolations();
  });

  it('When a member acts through an unmodelled route, then the action rejects with the 501 and is counted', async () => {
    const before = fake.unmodelled.length;
    const refusal = await fake
      .actAsUser(seed.ids.owner)
      .request('POST', Routes.channelInvites(seed.ids.general), { max_age: 0 })
      .catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(DiscordError);
    expect((refusal as DiscordError).toJSON()).toEqual({
      message: 'POST /channels/{channel_id}/invites is not modelled by the simulator',
      code: 0,
    });
    expect((refusal as DiscordError).status).toBe(501);
    expect(fake.unmodelled.slice(before).map((c) => `${c.method} ${c.route}`)).toEqual([
      'POST /channels/{channel_id}/invites',
    ]);
  });

  it('When a route is not in the OpenAPI description, then it still answers 404 and is not counted', async () => {
    const before = fake.unmodelled.length;
    const refusal = await rest.get(`/guilds/${seed.id}/no-such-thing`).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(DiscordAPIError);
    expect((refusal as DiscordAPIError).status).toBe(404);
    expect(fake.unmodelled).toHaveLength(before);
    expect(fake.violations).toEqual([
      `GET /guilds/${seed.id}/no-such-thing: no such route in Discord's OpenAPI description`,
    ]);
  });

  it('When the test kit resets the platform, then the unmodelled calls made before are kept', async () => {
    await answer('GET', Routes.guildInvites(seed.id));
    const count = fake.unmodelled.length;
    fake.reset({ resetData: true });
    expect(fake.unmodelled).toHaveLength(count);
  });
});
