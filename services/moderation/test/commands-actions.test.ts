import { newSnowflake } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { ApplicationCommandOptionType } from 'discord-api-types/v10';
import { ConfirmationModel } from '../src/commands/confirmationModel';
import { type CommandHarness, startCommandHarness } from './commandHarness';
import type { Harness } from './harness';
import type { PlatformMember } from './throughPlatform';

const APP = '1000000000000000009';
/** A call the simulator recorded. */
type RecordedCall = ReturnType<Harness['fake']['callsTo']>[number];

const CALLBACK = '/interactions/{interaction_id}/{interaction_token}/callback';
const ORIGINAL = '/webhooks/{webhook_id}/{webhook_token}/messages/@original';

describe('moderation commands that act (warn, timeout, kick, ban, unban, the Warn menu)', () => {
  let h: Harness;
  let base: string;
  let started: CommandHarness;
  /** Commands and button presses through the platform (the confirmations' buttons are on the runner's answer). */
  let platform: PlatformMember;

  beforeAll(async () => {
    started = await startCommandHarness({ EXPIRY_POLL_MS: '100', PEER_TIMEOUT_MS: '500' });
    ({ h, platform } = started);
    base = `/api/v1/servers/${h.seed.id}`;
  });
  afterAll(() => started.close());

  const callsOf = (route: string, token: string, method = 'POST'): RecordedCall[] =>
    h.fake.callsTo(method, route).filter((c) => c.path.includes(token));
  /** The ephemeral answer's text once the original was edited `edits` times. */
  const answerOf = async (token: string, edits = 1): Promise<string> => {
    await waitFor(() => callsOf(ORIGINAL, token, 'PATCH').length >= edits);
    return (callsOf(ORIGINAL, token, 'PATCH')[edits - 1].body as { content: string }).content;
  };
  const who = (user: string, username: string) => ({
    user: { id: user, username, global_name: null, discriminator: '0', avatar: null },
    nick: null,
    roles: [],
    permissions: '0',
  });
  const envelope = (user: string) => {
    const id = newSnowflake();
    return {
      id,
      application_id: APP,
      token: `token-${id}`,
      version: 1,
      guild_id: h.seed.id,
      channel_id: h.seed.ids.general,
      channel: { id: h.seed.ids.general, type: 0 },
      member: who(user, user === h.seed.ids.moderator ? 'mo' : 'sam'),
    };
  };
  const memberOf = (user: string) => h.fake.guild(h.seed.id)!.members.get(user);
  /** Runs chat input command `name` as `user` with `options`; a `member`/`user` option is resolved from the guild. */
  const run = async (user: string, name: string, options: Record<string, string | number>) => {
    const i = {
      ...envelope(user),
      type: 2,
      data: {
        id: '1000000000000000010',
        name,
        type: 1,
        options: Object.entries(options).map(([n, value]) => ({
          name: n,
          value,
          type:
            n === 'member' || n === 'user'
              ? ApplicationCommandOptionType.User
              : typeof value === 'number'
                ? ApplicationCommandOptionType.Integer
                : ApplicationCommandOptionType.String,
        })),
        resolved: {
          users: Object.fromEntries(
            Object.entries(options)
              .filter(([n]) => n === 'member' || n === 'user')
              .map(([, id]) => [id, memberOf(String(id))?.user ?? { id, username: String(id), global_name: null }]),
          ),
        },
      },
    };
    await h.dispatch('INTERACTION_CREATE', i);
    return i;
  };
  /** A press the platform would not send (`user` cannot see the answer): the service must refuse it too. */
  const forgedPress = async (user: string, customId: string) => {
    const i = { ...envelope(user), type: 3, data: { custom_id: customId, component_type: 2 } };
    await h.dispatch('INTERACTION_CREATE', i);
    return i;
  };
  const refusalOf = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected the platform to refuse');
      },
      (err: { code: number }) => err.code,
    );
  const isBanned = (user: string) => h.fake.guild(h.seed.id)!.bans.has(user);
  const buttonsOf = async (token: string) => {
    await waitFor(() => callsOf(ORIGINAL, token, 'PATCH').length >= 1);
    const body = callsOf(ORIGINAL, token, 'PATCH')[0].body as {
      content: string;
      components: Array<{ components: Array<{ custom_id: string; label: string }> }>;
    };
    if (!body.components?.length) throw new Error(`no buttons: ${body.content}`);
    return { content: body.content, buttons: body.components[0].components };
  };

  it('/warn defers, opens the case as the API does (moderator, audit actor) and answers with it', async () => {
    const i = await run(h.seed.ids.moderator, 'warn', { member: h.seed.ids.member, reason: 'be nice' });
    const text = await answerOf(i.token);
    expect(text).toMatch(/^Case #(\d+): pat warned - be nice$/);
    expect(callsOf(CALLBACK, i.id)[0].body).toEqual({ type: 5, data: { flags: 64 } });
    const number = Number(/#(\d+)/.exec(text)![1]);
    const got = await h.call('GET', `${base}/cases/${number}`);
    expect(got.body.case).toMatchObject({
      action: 'warn',
      target: h.seed.ids.member,
      moderator: h.seed.ids.moderator,
      moderatorName: 'mo',
      reason: 'be nice',
      status: 'active',
    });
    expect(callsOf(ORIGINAL, i.token, 'PATCH')[0].body).toMatchObject({ allowed_mentions: { parse: [] } });

    await h.dispatch('INTERACTION_CREATE', i);
    expect(await answerOf(i.token, 2)).toBe(text);
    const list = await h.call('GET', `${base}/cases?target=${h.seed.ids.member}`);
    expect(list.body.cases.filter((c: { action: string }) => c.action === 'warn')).toHaveLength(1);
  });

  it('/timeout times the member out on the platform, audited for the moderator who ran it', async () => {
    const i = await run(h.seed.ids.moderator, 'timeout', { member: h.seed.ids.member, duration: 3600, reason: 'spam' });
    const text = await answerOf(i.token);
    expect(text).toMatch(/^Case #\d+: pat timed out for 1 hour - spam$/);
    expect(Date.parse(memberOf(h.seed.ids.member)!.communication_disabled_until!)).toBeGreaterThan(Date.now());
    const edit = h.fake
      .callsTo('PATCH', '/guilds/{guild_id}/members/{user_id}')
      .find((c) => c.path.endsWith(h.seed.ids.member));
    expect(edit?.reason).toMatch(new RegExp(`^\\[for ${h.seed.ids.moderator}\\] Case #\\d+ by mo`));
  });

  it('refuses a caller without the cap, one below the target, and answers "try again" when access cannot be checked', async () => {
    const before = (await h.call('GET', `${base}/cases`)).body.cases.length;
    const noCap = await run(h.seed.ids.support, 'warn', { member: h.seed.ids.member, reason: 'x' });
    expect(await answerOf(noCap.token)).toBe('You need the cap `cases.write` in this server to do that.');
    const above = await run(h.seed.ids.moderator, 'timeout', { member: h.seed.ids.admin, duration: 60, reason: 'x' });
    expect(await answerOf(above.token)).toMatch(/role/i);
    expect(memberOf(h.seed.ids.admin)!.communication_disabled_until ?? null).toBeNull();
    started.access.down = true;
    try {
      const down = await run(h.seed.ids.moderator, 'warn', { member: h.seed.ids.member, reason: 'x' });
      expect(await answerOf(down.token)).toMatch(/try again shortly/);
    } finally {
      started.access.down = false;
    }
    const self = await run(h.seed.ids.moderator, 'warn', { member: h.seed.ids.moderator, reason: 'x' });
    expect(await answerOf(self.token)).toMatch(/yourself/);
    expect((await h.call('GET', `${base}/cases`)).body.cases).toHaveLength(before);
  });

  it('/kick asks first: Cancel changes nothing, only the runner may confirm, Confirm kicks once', async () => {
    const kickTarget = newSnowflake();
    h.fake.memberJoins(h.seed.id, { user: { id: kickTarget, username: 'kim' } });
    const cancelled = await platform.run(h.seed.ids.moderator, 'kick', { member: kickTarget, reason: 'rude' });
    const asked = await buttonsOf(cancelled.token);
    expect(asked.buttons.map((b) => [b.label, b.custom_id])).toEqual([
      ['Confirm', `mod:confirm:${cancelled.id}`],
      ['Cancel', `mod:cancel:${cancelled.id}`],
    ]);
    expect(h.fake.interactionResponse(cancelled.id)).toMatchObject({ flags: 64, content: asked.content });
    expect(await ConfirmationModel.countDocuments({ _id: cancelled.id, state: 'pending' })).toBe(1);
    const cancel = await platform.press(h.seed.ids.moderator, cancelled, `mod:cancel:${cancelled.id}`);
    await waitFor(() => callsOf(CALLBACK, cancel.id).length === 1);
    expect(callsOf(CALLBACK, cancel.id)[0].body).toMatchObject({
      type: 7,
      data: { content: expect.stringMatching(/nothing was done/), components: [] },
    });
    expect(h.fake.interactionResponse(cancelled.id)).toMatchObject({ components: [] });
    expect(await refusalOf(platform.press(h.seed.ids.moderator, cancelled, `mod:confirm:${cancelled.id}`))).toBe(50035);
    const late = await forgedPress(h.seed.ids.moderator, `mod:confirm:${cancelled.id}`);
    await waitFor(() => callsOf(CALLBACK, late.id).length === 1);
    expect(callsOf(CALLBACK, late.id)[0].body).toMatchObject({
      type: 4,
      data: { content: expect.stringMatching(/cancelled/) },
    });
    expect(memberOf(kickTarget)).toBeDefined();

    const kick = await platform.run(h.seed.ids.moderator, 'kick', { member: kickTarget, reason: 'rude' });
    await buttonsOf(kick.token);
    expect(await refusalOf(platform.press(h.seed.ids.support, kick, `mod:confirm:${kick.id}`))).toBe(10008);
    const stranger = await forgedPress(h.seed.ids.support, `mod:confirm:${kick.id}`);
    await waitFor(() => callsOf(CALLBACK, stranger.id).length === 1);
    expect(callsOf(CALLBACK, stranger.id)[0].body).toMatchObject({
      type: 4,
      data: { content: expect.stringMatching(/Only mo/) },
    });
    expect(memberOf(kickTarget)).toBeDefined();
    const [first, second] = await Promise.all([
      platform.press(h.seed.ids.moderator, kick, `mod:confirm:${kick.id}`),
      platform.press(h.seed.ids.moderator, kick, `mod:confirm:${kick.id}`),
    ]);
    const done = await answerOf(first.token);
    expect(done).toMatch(/^Case #\d+: kim kicked - rude$/);
    expect(await answerOf(second.token)).toBe(done);
    expect(memberOf(kickTarget)).toBeUndefined();
    expect(h.fake.callsTo('DELETE', '/guilds/{guild_id}/members/{user_id}')).toHaveLength(1);
  });

  it('a confirmation lapses after 15 minutes (a TTL index removes its row): Confirm then acts on nothing', async () => {
    const indexes = await ConfirmationModel.collection.indexes();
    expect(indexes).toContainEqual(expect.objectContaining({ key: { expiresAt: 1 }, expireAfterSeconds: 0 }));
    const target = newSnowflake();
    h.fake.memberJoins(h.seed.id, { user: { id: target, username: 'lee' } });
    const ban = await platform.run(h.seed.ids.moderator, 'ban', { user: target, reason: 'spam' });
    const asked = await buttonsOf(ban.token);
    expect(asked.content).toMatch(/^Ban lee \(\d+\)\? Reason: spam/);
    const stored = await ConfirmationModel.findById(ban.id).lean<{ expiresAt: Date }>();
    expect(stored!.expiresAt.getTime() - Date.now()).toBeGreaterThan(14 * 60_000);
    await ConfirmationModel.updateOne({ _id: ban.id }, { $set: { expiresAt: new Date(Date.now() - 1_000) } });
    const late = await platform.press(h.seed.ids.moderator, ban, `mod:confirm:${ban.id}`);
    await waitFor(() => callsOf(CALLBACK, late.id).length === 1);
    expect(callsOf(CALLBACK, late.id)[0].body).toMatchObject({
      type: 7,
      data: { content: expect.stringMatching(/lapsed: nothing was done/), components: [] },
    });
    expect(isBanned(target)).toBe(false);
  });

  it('/ban asks, bans for a while with deleted messages on Confirm; /unban revokes the live ban case', async () => {
    const user = newSnowflake();
    h.fake.memberJoins(h.seed.id, { user: { id: user, username: 'bo' } });
    const ban = await platform.run(h.seed.ids.moderator, 'ban', {
      user,
      reason: 'raid',
      delete_messages: 3600,
      duration: 86_400,
    });
    await buttonsOf(ban.token);
    expect(isBanned(user)).toBe(false);
    const confirm = await platform.press(h.seed.ids.moderator, ban, `mod:confirm:${ban.id}`);
    const text = await answerOf(confirm.token);
    expect(text).toMatch(/^Case #\d+: bo banned for 1 day - raid$/);
    expect(isBanned(user)).toBe(true);
    const put = h.fake.callsTo('PUT', '/guilds/{guild_id}/bans/{user_id}').find((c) => c.path.endsWith(user));
    expect(put?.body).toEqual({ delete_message_seconds: 3600 });
    expect(put?.reason).toMatch(new RegExp(`^\\[for ${h.seed.ids.moderator}\\]`));
    const number = Number(/#(\d+)/.exec(text)![1]);
    expect((await h.call('GET', `${base}/cases/${number}`)).body.case).toMatchObject({
      action: 'ban',
      status: 'active',
    });

    const noCap = await run(h.seed.ids.support, 'unban', { user, reason: 'sorry' });
    expect(await answerOf(noCap.token)).toBe('You need the cap `cases.revoke` in this server to do that.');
    const unban = await run(h.seed.ids.moderator, 'unban', { user, reason: 'sorry' });
    expect(await answerOf(unban.token)).toBe(`Case #${number} revoked: bo unbanned - sorry`);
    expect(isBanned(user)).toBe(false);
    const revoked = (await h.call('GET', `${base}/cases/${number}`)).body;
    expect(revoked.case).toMatchObject({ status: 'revoked' });
    expect(revoked.history.at(-1)).toMatchObject({ note: 'sorry' });
    const again = await run(h.seed.ids.moderator, 'unban', { user, reason: 'sorry' });
    expect(await answerOf(again.token)).toBe(`${user} is not banned.`);
  });

  it('the Warn menu opens a modal for the reason, whose submission warns', async () => {
    const menu = {
      ...envelope(h.seed.ids.moderator),
      type: 2,
      data: {
        id: '1000000000000000011',
        name: 'Warn',
        type: 2,
        target_id: h.seed.ids.member,
        resolved: { users: { [h.seed.ids.member]: { id: h.seed.ids.member, username: 'pat', global_name: null } } },
      },
    };
    await h.dispatch('INTERACTION_CREATE', menu);
    await waitFor(() => callsOf(CALLBACK, menu.id).length === 1);
    expect(callsOf(CALLBACK, menu.id)[0].body).toMatchObject({
      type: 9,
      data: { custom_id: `mod:warn:${h.seed.ids.member}`, title: 'Warn pat' },
    });
    const submit = {
      ...envelope(h.seed.ids.moderator),
      type: 5,
      data: {
        custom_id: `mod:warn:${h.seed.ids.member}`,
        components: [{ type: 1, components: [{ type: 4, custom_id: 'reason', value: 'off topic' }] }],
      },
    };
    await h.dispatch('INTERACTION_CREATE', submit);
    expect(await answerOf(submit.token)).toMatch(/^Case #\d+: pat warned - off topic$/);
  });

  it('a slow platform still gets the deferred answer first, then the result', async () => {
    const held = h.fake.holdNextAnswer('GET', '/guilds/{guild_id}/members/{user_id}');
    const i = await run(h.seed.ids.moderator, 'warn', { member: h.seed.ids.member, reason: 'slow' });
    await held.arrived;
    expect(callsOf(CALLBACK, i.id)[0].body).toMatchObject({ type: 5 });
    expect(callsOf(ORIGINAL, i.token, 'PATCH')).toHaveLength(0);
    held.release();
    expect(await answerOf(i.token)).toMatch(/^Case #\d+: pat warned - slow$/);
  });
});
