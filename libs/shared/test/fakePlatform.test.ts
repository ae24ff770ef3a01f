import { DiscordAPIError, REST } from '@discordjs/rest';
import { type APIGuild, type APIGuildMember, Routes } from 'discord-api-types/v10';
import { type FakePlatform, sampleGuild, startFakePlatform } from '../src/testing/fakePlatform';

describe('fake chat platform', () => {
  let fake: FakePlatform;
  let rest: REST;
  let seed: ReturnType<typeof sampleGuild>;

  beforeAll(async () => {
    fake = await startFakePlatform();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.reset({ resetData: true });
    seed = sampleGuild();
    fake.seedGuild(seed);
    rest = new REST({ api: fake.url, version: '10', retries: 0 }).setToken('test-token');
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a DiscordAPIError');
      },
      (err: unknown) => err as DiscordAPIError,
    );

  it('serves a seeded guild with roles, and the bot as a member below the top role', async () => {
    const guild = (await rest.get(Routes.guild(seed.id), {
      query: new URLSearchParams({ with_counts: 'true' }),
    })) as APIGuild & { approximate_member_count: number };
    expect(guild).toMatchObject({
      id: seed.id,
      owner_id: seed.ids.owner,
      premium_tier: 0,
      approximate_member_count: 6,
    });
    expect(guild.roles.map((r) => r.name)).toEqual(['@everyone', 'Support', 'Moderator', 'Guildhall', 'Admin']);
    const bot = (await rest.get(Routes.guildMember(seed.id, fake.botUserId))) as APIGuildMember;
    expect(bot.roles).toEqual([seed.ids.botRole]);
    expect(fake.callsTo('GET', '/guilds/{guild_id}')).toHaveLength(1);
    fake.assertNoViolations();
  });

  it('bans a member, records the decoded audit-log reason and removes the member', async () => {
    await rest.put(Routes.guildBan(seed.id, seed.ids.member), {
      body: { delete_message_seconds: 3600 },
      reason: 'Spam: links & invites',
    });
    const [call] = fake.callsTo('PUT', '/guilds/{guild_id}/bans/{user_id}');
    expect(call).toMatchObject({
      path: `/guilds/${seed.id}/bans/${seed.ids.member}`,
      reason: 'Spam: links & invites',
      status: 204,
      body: { delete_message_seconds: 3600 },
    });
    const state = fake.guild(seed.id)!;
    expect(state.members.has(seed.ids.member)).toBe(false);
    expect(state.bans.get(seed.ids.member)?.reason).toBe('Spam: links & invites');
    expect(await rest.get(Routes.guildBan(seed.id, seed.ids.member))).toMatchObject({ user: { id: seed.ids.member } });
    const err = await refusal(rest.delete(Routes.guildBan(seed.id, seed.ids.admin)));
    expect([err.status, err.code]).toEqual([404, 10026]);
    fake.assertNoViolations();
  });

  it('refuses moderation of the owner or of members at or above the bot with 50013', async () => {
    for (const target of [seed.ids.owner, seed.ids.admin]) {
      const err = await refusal(rest.put(Routes.guildBan(seed.id, target), { body: {} }));
      expect(err).toBeInstanceOf(DiscordAPIError);
      expect([err.status, err.code, err.message]).toEqual([403, 50013, 'Missing Permissions']);
    }
    await rest.delete(Routes.guildMember(seed.id, seed.ids.moderator));
    expect(fake.guild(seed.id)!.members.has(seed.ids.moderator)).toBe(false);
    const unknown = await refusal(rest.get(Routes.guildMember(seed.id, '123456789012345678')));
    expect(unknown.code).toBe(10007);
  });

  it('times a member out for up to 28 days and refuses longer timeouts', async () => {
    const until = new Date(Date.now() + 7 * 86400_000).toISOString();
    const member = (await rest.patch(Routes.guildMember(seed.id, seed.ids.member), {
      body: { communication_disabled_until: until },
    })) as APIGuildMember;
    expect(member.communication_disabled_until).toBe(until);
    const tooLong = new Date(Date.now() + 29 * 86400_000).toISOString();
    const err = await refusal(
      rest.patch(Routes.guildMember(seed.id, seed.ids.member), { body: { communication_disabled_until: tooLong } }),
    );
    expect([err.status, err.code]).toEqual([400, 50035]);
    expect(err.rawError).toMatchObject({
      errors: { communication_disabled_until: { _errors: [{ code: 'INVALID_COMMUNICATION_DISABLED_TIMESTAMP' }] } },
    });
    expect(fake.guild(seed.id)!.members.get(seed.ids.member)!.communication_disabled_until).toBe(until);
  });

  it('records a body that does not match the OpenAPI schema as a violation and answers 50035', async () => {
    const err = await refusal(
      rest.put(Routes.guildBan(seed.id, seed.ids.member), { body: { delete_message_seconds: 'x' } }),
    );
    expect([err.status, err.code]).toEqual([400, 50035]);
    expect(err.rawError).toMatchObject({
      errors: { delete_message_seconds: { _errors: [expect.objectContaining({ code: expect.any(String) })] } },
    });
    expect(fake.violations).toEqual([expect.stringContaining('delete_message_seconds')]);
    expect(() => fake.assertNoViolations()).toThrow(/ban_user_from_guild/);
    expect(fake.guild(seed.id)!.bans.size).toBe(0);
  });

  it('answers 404 code 0 for a route Discord does not have, and records a violation', async () => {
    const res = await fetch(`${fake.url}/v10/guilds/${seed.id}/moderators`, { headers: { Authorization: 'Bot x' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: '404: Not Found', code: 0 });
    expect(fake.violations).toEqual([expect.stringContaining(`/guilds/${seed.id}/moderators`)]);
  });

  it('sends rate-limit headers, and a 429 that @discordjs/rest waits out and retries', async () => {
    const res = await fetch(`${fake.url}/v10/guilds/${seed.id}/roles`, { headers: { Authorization: 'Bot x' } });
    expect(res.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(0);

    fake.rateLimitNext('GET', '/guilds/{guild_id}/roles', 0.2);
    const started = Date.now();
    const roles = (await rest.get(Routes.guildRoles(seed.id))) as unknown[];
    expect(roles).toHaveLength(5);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(fake.callsTo('GET', '/guilds/{guild_id}/roles').map((c) => c.status)).toEqual([200, 429, 200]);

    fake.rateLimitNext('GET', /\/roles$/, 0.2, true);
    const raw = await fetch(`${fake.url}/v10/guilds/${seed.id}/roles`, { headers: { Authorization: 'Bot x' } });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('1');
    expect(raw.headers.get('x-ratelimit-scope')).toBe('global');
    expect(raw.headers.get('x-ratelimit-global')).toBe('true');
    expect(await raw.json()).toEqual({ message: 'You are being rate limited.', retry_after: 0.2, global: true });
  });

  it('answers an injected error once', async () => {
    fake.failNext('POST', '/channels/{channel_id}/messages', { status: 403, code: 50001, message: 'Missing Access' });
    const err = await refusal(rest.post(Routes.channelMessages(seed.ids.general), { body: { content: 'hello' } }));
    expect([err.status, err.code, err.message]).toEqual([403, 50001, 'Missing Access']);
    const message = (await rest.post(Routes.channelMessages(seed.ids.general), { body: { content: 'hello' } })) as {
      id: string;
      author: { id: string };
    };
    expect(message.author.id).toBe(fake.botUserId);
    expect(fake.guild(seed.id)!.messages.get(seed.ids.general)).toEqual([
      expect.objectContaining({ id: message.id, content: 'hello' }),
    ]);
  });

  it('refuses a wrong bot token with 401', async () => {
    const other = await startFakePlatform({ invalidBotToken: 'revoked' });
    try {
      const res = await fetch(`${other.url}/v10/users/@me`, { headers: { Authorization: 'Bot revoked' } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ message: '401: Unauthorized', code: 0 });
    } finally {
      await other.close();
    }
  });
});
