import { type Cap, type MemberHistoryReply, type MemberHistoryRequest, newSnowflake, RPC } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { ApplicationCommandOptionType } from 'discord-api-types/v10';
import { type CommandHarness, startCommandHarness } from './commandHarness';
import type { Harness } from './harness';
import type { PlatformMember } from './throughPlatform';

const APP = '1000000000000000009';
const DASHBOARD = 'http://dash.test';
const CALLBACK = '/interactions/{interaction_id}/{interaction_token}/callback';
const ORIGINAL = '/webhooks/{webhook_id}/{webhook_token}/messages/@original';
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary answer shapes
type Json = any;

/**
 * The lookup commands (issue 30) against the simulator: `/case show|reason|revoke` with the API's use cases, caps and
 * rules, the case number's autocomplete, `/history` paged with buttons, "Member record"; refusals change nothing.
 */
describe('lookup commands (/case, /history, Member record)', () => {
  let h: Harness;
  let base: string;
  let started: CommandHarness;
  /** The caps community answers per user. */
  let caps: Map<string, Cap[]>;
  /** Commands and button presses through the platform (the /history buttons are on the runner's answer). */
  let platform: PlatformMember;

  beforeAll(async () => {
    started = await startCommandHarness({
      EXPIRY_POLL_MS: '100',
      PEER_TIMEOUT_MS: '500',
      DASHBOARD_ORIGINS: `${DASHBOARD}/,http://other.test`,
    });
    ({ h, caps, platform } = started);
    h.peer.reply<MemberHistoryRequest, MemberHistoryReply>(RPC.memberHistory, async () => ({
      events: [],
      deleted: [],
    }));
    caps.set(h.seed.ids.support, ['cases.read']);
    base = `/api/v1/servers/${h.seed.id}`;
  });
  afterAll(() => started.close());

  const callsOf = (route: string, token: string, method = 'POST') =>
    h.fake.callsTo(method, route).filter((c) => c.path.includes(token));
  /** The body of the first callback of interaction `id`. */
  const callbackOf = async (id: string) => {
    await waitFor(() => callsOf(CALLBACK, id).length >= 1);
    return callsOf(CALLBACK, id)[0].body as { type: number; data: Json };
  };
  /** The deferred answer's final text (the first edit of the original). */
  const answerOf = async (token: string) => {
    await waitFor(() => callsOf(ORIGINAL, token, 'PATCH').length >= 1);
    return callsOf(ORIGINAL, token, 'PATCH')[0].body as { content: string; components?: Json[] };
  };
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
      member: {
        user: { id: user, username: user === h.seed.ids.moderator ? 'mo' : 'sam', global_name: null },
        nick: null,
        roles: [],
        permissions: '0',
      },
    };
  };
  const pat = () => ({ [h.seed.ids.member]: { id: h.seed.ids.member, username: 'pat', global_name: null } });
  /** Runs `/case <sub>` as `user` (type 2, or type 4 autocomplete with `number` focused). */
  const caseCommand = async (user: string, sub: string, options: Record<string, string | number>, type = 2) => {
    const i = {
      ...envelope(user),
      type,
      data: {
        id: '1000000000000000012',
        name: 'case',
        type: 1,
        options: [
          {
            type: ApplicationCommandOptionType.Subcommand,
            name: sub,
            options: Object.entries(options).map(([name, value]) => ({
              name,
              value,
              type: name === 'number' ? ApplicationCommandOptionType.Integer : ApplicationCommandOptionType.String,
              ...(type === 4 && name === 'number' ? { focused: true } : {}),
            })),
          },
        ],
      },
    };
    await h.dispatch('INTERACTION_CREATE', i);
    return i;
  };
  const history = async (user: string, target: string) => {
    const i = {
      ...envelope(user),
      type: 2,
      data: {
        id: '1000000000000000013',
        name: 'history',
        type: 1,
        options: [{ name: 'user', type: ApplicationCommandOptionType.User, value: target }],
        resolved: { users: pat() },
      },
    };
    await h.dispatch('INTERACTION_CREATE', i);
    return i;
  };
  const openCase = async (body: Record<string, unknown>, as = h.seed.ids.moderator) => {
    const res = await h.call('POST', `${base}/cases`, { as, name: 'mo', body });
    expect(res.status).toBe(201);
    return res.body.number as number;
  };
  const caseOf = async (n: number) => (await h.call('GET', `${base}/cases/${n}`)).body.case;

  it('/case show answers the case with its dashboard link; without cases.read, or unchecked, it is refused', async () => {
    const n = await openCase({ target: h.seed.ids.member, action: 'warn', reason: 'spam in general' });
    const shown = await caseCommand(h.seed.ids.moderator, 'show', { number: n });
    expect(await callbackOf(shown.id)).toEqual({ type: 5, data: { flags: 64 } });
    const text = (await answerOf(shown.token)).content;
    expect(text).toContain(`**Case #${n}** · warn · active`);
    expect(text).toContain(`Target: pat (<@${h.seed.ids.member}>)`);
    expect(text).toContain('Reason: spam in general');
    expect(text).toContain(`Dashboard: ${DASHBOARD}/guilds/${h.seed.id}/cases/${n}`);

    const noCap = await caseCommand(h.seed.ids.member, 'show', { number: n });
    expect((await answerOf(noCap.token)).content).toBe('You need the cap `cases.read` in this server to do that.');
    started.access.down = true;
    try {
      const down = await caseCommand(h.seed.ids.moderator, 'show', { number: n });
      expect((await answerOf(down.token)).content).toMatch(/try again shortly/);
    } finally {
      started.access.down = false;
    }
    const unknown = await caseCommand(h.seed.ids.moderator, 'show', { number: 9999 });
    expect((await answerOf(unknown.token)).content).toBe('Unknown case #9999');
  });

  it('/case reason edits as the API does; a case about yourself, one above you, or without cases.write is refused and unchanged', async () => {
    const n = await openCase({ target: h.seed.ids.member, action: 'warn', reason: 'old reason' });
    const edit = await caseCommand(h.seed.ids.moderator, 'reason', { number: n, reason: 'new reason' });
    expect((await answerOf(edit.token)).content).toBe(`Case #${n}: the reason is now "new reason".`);
    expect((await caseOf(n)).reason).toBe('new reason');
    const event = await waitFor(() =>
      h.events.find((e) => e.type === 'case.updated' && (e.data as Json).case.number === n),
    );
    expect(event.data).toMatchObject({ previousReason: 'old reason', editedBy: h.seed.ids.moderator });

    const aboutMo = await openCase(
      { target: h.seed.ids.moderator, action: 'warn', reason: 'mo was rude' },
      h.seed.ids.admin,
    );
    const self = await caseCommand(h.seed.ids.moderator, 'reason', { number: aboutMo, reason: 'fine' });
    expect((await answerOf(self.token)).content).toMatch(/is about you/);
    const peer = newSnowflake();
    h.fake.memberJoins(h.seed.id, { user: { id: peer, username: 'peer' }, roles: [h.seed.ids.moderatorRole] });
    const aboutPeer = await openCase({ target: peer, action: 'warn', reason: 'peer' }, h.seed.ids.owner);
    const above = await caseCommand(h.seed.ids.moderator, 'reason', { number: aboutPeer, reason: 'x' });
    expect((await answerOf(above.token)).content).toMatch(/role/i);
    const noCap = await caseCommand(h.seed.ids.support, 'reason', { number: n, reason: 'x' });
    expect((await answerOf(noCap.token)).content).toBe('You need the cap `cases.write` in this server to do that.');
    expect((await caseOf(aboutMo)).reason).toBe('mo was rude');
    expect((await caseOf(aboutPeer)).reason).toBe('peer');
    expect((await caseOf(n)).reason).toBe('new reason');
  });

  it('/case revoke lifts a timeout as the API does; without cases.revoke it is refused and the timeout stays', async () => {
    const n = await openCase({ target: h.seed.ids.member, action: 'timeout', duration: 3600, reason: 'flood' });
    const member = () => h.fake.guild(h.seed.id)!.members.get(h.seed.ids.member)!;
    await waitFor(async () => (await caseOf(n)).status === 'active');
    expect(Date.parse(member().communication_disabled_until!)).toBeGreaterThan(Date.now());

    const noCap = await caseCommand(h.seed.ids.support, 'revoke', { number: n, reason: 'sorry' });
    expect((await answerOf(noCap.token)).content).toBe('You need the cap `cases.revoke` in this server to do that.');
    expect((await caseOf(n)).status).toBe('active');

    const revoke = await caseCommand(h.seed.ids.moderator, 'revoke', { number: n, reason: 'appeal by DM' });
    expect((await answerOf(revoke.token)).content).toBe(`Case #${n} revoked (timeout of pat) - appeal by DM`);
    expect((await caseOf(n)).status).toBe('revoked');
    const detail = (await h.call('GET', `${base}/cases/${n}`)).body;
    expect(detail.history.at(-1)).toMatchObject({ change: 'revoked', by: h.seed.ids.moderator, note: 'appeal by DM' });
    const shown = await caseCommand(h.seed.ids.moderator, 'show', { number: n });
    expect((await answerOf(shown.token)).content).toMatch(/Revoked: <t:\d+:f> by mo \(appeal by DM\)/);
    expect(member().communication_disabled_until ?? null).toBeNull();
    const lift = h.fake
      .callsTo('PATCH', '/guilds/{guild_id}/members/{user_id}')
      .filter((c) => c.path.endsWith(h.seed.ids.member))
      .at(-1);
    expect(lift?.reason).toMatch(new RegExp(`^\\[for ${h.seed.ids.moderator}\\] Revoked: Case #${n} by mo`));
    const twice = await caseCommand(h.seed.ids.moderator, 'revoke', { number: n, reason: 'again' });
    expect((await answerOf(twice.token)).content).toBe(`Case #${n} is already revoked`);
  });

  it("autocompletes the case number with the guild's latest cases starting with the typed digits", async () => {
    const typed = await caseCommand(h.seed.ids.moderator, 'show', { number: '1' }, 4);
    const answer = await callbackOf(typed.id);
    expect(answer.type).toBe(8);
    const numbers = answer.data.choices.map((c: { value: number }) => c.value);
    expect(numbers.length).toBeGreaterThan(0);
    expect(numbers.every((v: number) => String(v).startsWith('1'))).toBe(true);
    expect(numbers).toEqual([...numbers].sort((a: number, b: number) => b - a));
    expect(answer.data.choices[0].name).toMatch(/^#\d+ \w+ · /);

    const all = await caseCommand(h.seed.ids.moderator, 'show', { number: '' }, 4);
    const latest = (await h.call('GET', `${base}/cases?limit=25`)).body.cases.map((c: { number: number }) => c.number);
    expect((await callbackOf(all.id)).data.choices.map((c: { value: number }) => c.value)).toEqual(latest);
    const stranger = await caseCommand(h.seed.ids.member, 'show', { number: '1' }, 4);
    expect(await callbackOf(stranger.id)).toEqual({ type: 8, data: { choices: [] } });
  });

  it('/history pages 5 cases newest first with Previous/Next buttons that update the message', async () => {
    const target = newSnowflake();
    h.fake.memberJoins(h.seed.id, { user: { id: target, username: 'tess' } });
    const numbers: number[] = [];
    for (let k = 1; k <= 7; k++) numbers.push(await openCase({ target, action: 'warn', reason: `warn ${k}` }));
    const i = await platform.run(h.seed.ids.moderator, 'history', { user: target });
    const first = await answerOf(i.token);
    expect(first.content).toContain('7 cases · page 1 of 2');
    expect(first.content.match(/^\*\*#\d+\*\*/gm)).toEqual(
      numbers
        .slice(2)
        .reverse()
        .map((n) => `**#${n}**`),
    );
    expect(first.content).toContain(`Record: ${DASHBOARD}/guilds/${h.seed.id}/members/${target}`);
    expect(first.components?.[0].components.map((b: Json) => [b.label, b.custom_id, b.disabled])).toEqual([
      ['Previous', `mod:lookup:history:${target}:0`, true],
      ['Next', `mod:lookup:history:${target}:1`, false],
    ]);

    const next = await platform.press(h.seed.ids.moderator, i, `mod:lookup:history:${target}:1`);
    const page2 = await callbackOf(next.id);
    expect(page2.type).toBe(7);
    expect(page2.data.content).toContain('page 2 of 2');
    expect(page2.data.content.match(/^\*\*#\d+\*\*/gm)).toEqual([`**#${numbers[1]}**`, `**#${numbers[0]}**`]);
    expect(page2.data.components[0].components.map((b: Json) => b.disabled)).toEqual([false, true]);

    expect(h.fake.interactionResponse(i.id)).toMatchObject({ flags: 64, content: page2.data.content });

    caps.set(h.seed.ids.moderator, ['cases.write']);
    try {
      const lost = await platform.press(h.seed.ids.moderator, i, `mod:lookup:history:${target}:0`);
      expect(await callbackOf(lost.id)).toMatchObject({
        type: 7,
        data: { content: 'You need the cap `cases.read` in this server to do that.', components: [] },
      });
    } finally {
      caps.set(h.seed.ids.moderator, ['cases.read', 'cases.write', 'cases.revoke']);
    }
    const none = await history(h.seed.ids.support, newSnowflake());
    expect((await answerOf(none.token)).content).toMatch(/has no cases/);
  });

  it('"Member record" summarises the record for the caller with the suggestion and the dashboard link', async () => {
    const i = {
      ...envelope(h.seed.ids.support),
      type: 2,
      data: {
        id: '1000000000000000014',
        name: 'Member record',
        type: 2,
        target_id: h.seed.ids.member,
        resolved: { users: pat() },
      },
    };
    await h.dispatch('INTERACTION_CREATE', i);
    const text = (await answerOf(i.token)).content;
    const record = (await h.call('GET', `${base}/members/${h.seed.ids.member}`, { as: h.seed.ids.support })).body;
    expect(text).toContain(`Cases: ${record.cases.length} (`);
    expect(text).toContain(`Suggested: ${record.suggestion.action}`);
    expect(text).toContain(record.suggestion.why);
    expect(text).toContain(`Record: ${DASHBOARD}/guilds/${h.seed.id}/members/${h.seed.ids.member}`);
    const noCap = { ...i, ...envelope(h.seed.ids.member), type: 2 };
    await h.dispatch('INTERACTION_CREATE', noCap);
    expect((await answerOf(noCap.token)).content).toBe('You need the cap `cases.read` in this server to do that.');
    h.fake.assertNoViolations();
  });
});
