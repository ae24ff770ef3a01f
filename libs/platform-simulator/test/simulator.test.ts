import { DiscordAPIError, REST } from '@discordjs/rest';
import { type FakePlatform, type sampleGuild, startFakePlatform } from '@guildhall/platform-simulator';
import {
  type APIEmoji,
  type APIGuild,
  type APIGuildMember,
  type APISticker,
  type APIThreadChannel,
  ChannelType,
  GuildPremiumTier,
  InteractionResponseType,
  type RESTAPIPartialCurrentUserGuild,
  type RESTPostOAuth2AccessTokenResult,
  Routes,
} from 'discord-api-types/v10';
import { freshGuild } from './support/freshGuild';

describe('fake chat platform', () => {
  let fake: FakePlatform;
  let rest: REST;
  let seed: ReturnType<typeof sampleGuild>;

  beforeAll(async () => {
    fake = await startFakePlatform();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    ({ seed, rest } = freshGuild(fake));
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

  it('runs the OAuth2 code flow: authorize redirect, token exchange, then /users/@me/guilds with the bearer', async () => {
    fake.seedUser({
      id: seed.ids.admin,
      username: 'alice',
      guilds: [{ id: seed.id, name: 'Sample Guild', owner: false, permissions: '8' }],
    });
    const authorizeUrl = `${fake.origin}/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: fake.clientId, redirect_uri: 'http://app.local/cb', scope: 'identify guilds', state: 'xyz' })}`;
    const redirect = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const location = new URL(redirect.headers.get('location')!);
    expect(location.searchParams.get('state')).toBe('xyz');
    const code = location.searchParams.get('code')!;

    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
    const exchange = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://app.local/cb',
      client_id: fake.clientId,
      client_secret: fake.clientSecret,
    };
    const tokenRes = await fetch(`${fake.url}/v10/oauth2/token`, form(exchange));
    const token = (await tokenRes.json()) as RESTPostOAuth2AccessTokenResult;
    expect(token).toMatchObject({
      token_type: 'Bearer',
      scope: 'identify guilds',
      expires_in: expect.any(Number),
      refresh_token: expect.any(String),
    });
    const reused = await fetch(`${fake.url}/v10/oauth2/token`, form(exchange));
    expect([reused.status, ((await reused.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);

    const userRest = new REST({ api: fake.url, version: '10', authPrefix: 'Bearer' }).setToken(token.access_token);
    expect(await userRest.get(Routes.user('@me'))).toMatchObject({ id: seed.ids.admin, username: 'alice' });
    const guilds = (await userRest.get(Routes.userGuilds())) as RESTAPIPartialCurrentUserGuild[];
    expect(guilds).toEqual([expect.objectContaining({ id: seed.id, permissions: '8', owner: false })]);

    await fetch(
      `${fake.url}/v10/oauth2/token/revoke`,
      form({ token: token.access_token, client_id: fake.clientId, client_secret: fake.clientSecret }),
    );
    expect(
      (await fetch(`${fake.url}/v10/users/@me`, { headers: { Authorization: `Bearer ${token.access_token}` } })).status,
    ).toBe(401);
    fake.assertNoViolations();
  });

  it('enforces emoji and sticker slots by premium tier', async () => {
    const emojis = Array.from({ length: 50 }, (_, i) => ({ id: `${9000 + i}`, name: `e${i}` }));
    fake.seedGuild({ ...seed, premium_tier: GuildPremiumTier.None, emojis });
    const image = 'data:image/png;base64,iVBORw0KGgo=';
    const full = await refusal(rest.post(Routes.guildEmojis(seed.id), { body: { name: 'one_more', image } }));
    expect([full.status, full.code, full.message]).toEqual([400, 30008, 'Maximum number of emojis reached (50)']);
    const animated = (await rest.post(Routes.guildEmojis(seed.id), {
      body: { name: 'party', image: 'data:image/gif;base64,R0lGODlh' },
    })) as APIEmoji;
    expect(animated).toMatchObject({ name: 'party', animated: true });
    fake.guild(seed.id)!.premium_tier = GuildPremiumTier.Tier1;
    expect(await rest.post(Routes.guildEmojis(seed.id), { body: { name: 'one_more', image } })).toMatchObject({
      name: 'one_more',
    });

    const upload = () =>
      rest.post(Routes.guildStickers(seed.id), {
        appendToFormData: true,
        body: { name: 'wave', tags: 'wave' },
        files: [{ key: 'file', name: 'wave.png', data: Buffer.from('png'), contentType: 'image/png' }],
      });
    fake.guild(seed.id)!.premium_tier = GuildPremiumTier.None;
    for (let i = 0; i < 5; i++) expect((await upload()) as APISticker).toMatchObject({ name: 'wave', format_type: 1 });
    const stickers = await refusal(upload());
    expect([stickers.code, stickers.message]).toEqual([30039, 'Maximum number of stickers reached (5)']);
    expect(fake.callsTo('POST', '/guilds/{guild_id}/stickers')[0].body).toMatchObject({
      fields: { name: 'wave', tags: 'wave' },
      files: [{ field: 'file', filename: 'wave.png' }],
    });
    fake.assertNoViolations();
  });

  it('creates a private thread, adds a member, then archives and locks it', async () => {
    const thread = (await rest.post(Routes.threads(seed.ids.general), {
      body: { name: 'ticket-42', type: ChannelType.PrivateThread, invitable: false, auto_archive_duration: 1440 },
    })) as APIThreadChannel;
    expect(thread).toMatchObject({
      type: ChannelType.PrivateThread,
      parent_id: seed.ids.general,
      owner_id: fake.botUserId,
      thread_metadata: { archived: false, locked: false, invitable: false },
    });
    await rest.put(Routes.threadMembers(thread.id, seed.ids.member));
    expect((await rest.get(Routes.threadMembers(thread.id))) as unknown[]).toHaveLength(2);
    const notMember = await refusal(rest.put(Routes.threadMembers(thread.id, '123456789012345678')));
    expect(notMember.code).toBe(10007);
    await rest.patch(Routes.channel(thread.id), { body: { archived: true, locked: true }, reason: 'Ticket closed' });
    const state = fake.guild(seed.id)!.channels.get(thread.id)!;
    expect(state.thread_metadata).toMatchObject({ archived: true, locked: true });
    const closed = await refusal(rest.post(Routes.channelMessages(thread.id), { body: { content: 'late' } }));
    expect(closed.code).toBe(50083);
    expect(fake.callsTo('PATCH', '/channels/{channel_id}')[0].reason).toBe('Ticket closed');
    fake.assertNoViolations();
  });

  it("lists the active threads of a guild newest first, with the bot's memberships; archived ones are left out", async () => {
    const open = (name: string) =>
      rest.post(Routes.threads(seed.ids.general), {
        body: { name, type: ChannelType.PublicThread, auto_archive_duration: 10080 },
      }) as Promise<APIThreadChannel>;
    const first = await open('first');
    const second = await open('second');
    const archived = await open('archived');
    await rest.patch(Routes.channel(archived.id), { body: { archived: true } });
    const listed = (await rest.get(Routes.guildActiveThreads(seed.id))) as {
      threads: APIThreadChannel[];
      members: Array<{ id: string; user_id: string }>;
    };
    expect(listed.threads.map((t) => [t.id, t.name, t.parent_id])).toEqual([
      [second.id, 'second', seed.ids.general],
      [first.id, 'first', seed.ids.general],
    ]);
    expect(listed.members.map((m) => [m.id, m.user_id])).toEqual([
      [second.id, fake.botUserId],
      [first.id, fake.botUserId],
    ]);
    fake.assertNoViolations();
  });

  it('creates a forum post with applied tags, and refuses unknown tags', async () => {
    const post = (await rest.post(Routes.threads(seed.ids.forum), {
      body: { name: 'Login broken', message: { content: 'Cannot log in' }, applied_tags: [seed.ids.tags[0]] },
    })) as APIThreadChannel & { message: { id: string; content: string } };
    expect(post).toMatchObject({
      type: ChannelType.PublicThread,
      parent_id: seed.ids.forum,
      applied_tags: [seed.ids.tags[0]],
      message: { id: post.id, content: 'Cannot log in' },
    });
    await rest.patch(Routes.channel(post.id), { body: { applied_tags: [seed.ids.tags[0], seed.ids.tags[1]] } });
    expect(fake.guild(seed.id)!.channels.get(post.id)!.applied_tags).toEqual([seed.ids.tags[0], seed.ids.tags[1]]);
    const bad = await refusal(rest.patch(Routes.channel(post.id), { body: { applied_tags: ['123'] } }));
    expect(bad.code).toBe(50035);
    const tooMany = await refusal(
      rest.patch(Routes.channel(post.id), { body: { applied_tags: ['1', '2', '3', '4', '5', '6'] } }),
    );
    expect(tooMany.code).toBe(50035);
    expect(tooMany.rawError).toMatchObject({
      errors: { applied_tags: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } },
    });
    fake.assertNoViolations();
  });

  it('records interaction callbacks and edits the original response', async () => {
    const interaction = { id: '123456789012345678', token: 'tok' };
    await rest.post(Routes.interactionCallback(interaction.id, interaction.token), {
      body: { type: InteractionResponseType.DeferredChannelMessageWithSource },
      auth: false,
    });
    const edited = await rest.patch(Routes.webhookMessage(fake.clientId, interaction.token, '@original'), {
      body: { content: 'Done' },
      auth: false,
    });
    expect(edited).toMatchObject({ content: 'Done' });
    await rest.post(Routes.interactionCallback('123456789012345679', 'tok2'), {
      body: {
        type: InteractionResponseType.Modal,
        data: {
          custom_id: 'm',
          title: 'Why?',
          components: [{ type: 1, components: [{ type: 4, custom_id: 'r', label: 'Reason', style: 1 }] }],
        },
      },
      auth: false,
    });
    expect(
      fake
        .callsTo('POST', '/interactions/{interaction_id}/{interaction_token}/callback')
        .map((c) => (c.body as { type: number }).type),
    ).toEqual([5, 9]);
    fake.assertNoViolations();
  });

  it('refuses a second callback to one interaction with 400 40060, as Discord does', async () => {
    const interaction = { id: '123456789012345680', token: 'tok3' };
    const reply = { type: InteractionResponseType.ChannelMessageWithSource, data: { content: 'Filed' } };
    await rest.post(Routes.interactionCallback(interaction.id, interaction.token), { body: reply, auth: false });
    const second = await rest
      .post(Routes.interactionCallback(interaction.id, interaction.token), { body: reply, auth: false })
      .catch((err: unknown) => err);
    expect(second).toBeInstanceOf(DiscordAPIError);
    expect((second as DiscordAPIError).status).toBe(400);
    expect((second as DiscordAPIError).code).toBe(40060);
    const original = await rest.get(Routes.webhookMessage(fake.clientId, interaction.token, '@original'), {
      auth: false,
    });
    expect(original).toMatchObject({ content: 'Filed' });
  });
});
