/**
 * End to end with the day driven through the platform: the fixture guild's day is performed through the fake
 * platform's routes (members, staff and the bot acting at each action's time on the platform's clock), so what the
 * bridge receives from the platform gateway is what the platform emits for those actions, after the guild's
 * GUILD_CREATE. The journal must then hold the day's nickname change, #general's topic change, the emoji rename and
 * the admin's role grants, each with its actor; the moderator's ban and the admin's kick, made in the platform's
 * client, must each be a case naming them (issue 29), the admin's /warn and /timeout (issue 30: the bridge registered
 * the commands) cases by the admin, and the bot's own ban none.
 */
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { DASHBOARD_ORIGIN, quietBusState, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import { ApiClient } from './support/client';
import { Coverage } from './support/coverage';

let sys: System;
let api: ApiClient;

type JournalEvent = { kind: string; target: string; actor: string };

/** The journal's events of `kind` once `done` holds for them (the day's dispatches go through the bridge first). */
const journal = (kind: string, done: (events: JournalEvent[]) => boolean) =>
  waitFor(
    async () => {
      const res = await api.get(`/api/v1/servers/${sys.guild}/journal?kind=${kind}&limit=100`);
      return res.status === 200 ? (res.body.events as JournalEvent[]) : [];
    },
    done,
    120_000,
  );

beforeAll(async () => {
  sys = await startSystem({ day: 'play' });
  expect(await sys.dayPlayer.play()).toBe(0);
  api = new ApiClient(sys.gatewayUrl, new Coverage(), {
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
}, 300_000);
afterAll(async () => {
  await sys?.stop();
});

it("journals the driven day's nickname, topic, emoji rename and role grants with their actors", async () => {
  const facts = sys.day;
  const has = (target: string, actor: string) => (events: JournalEvent[]) =>
    events.some((e) => e.target === target && e.actor === actor);

  await journal('member_nickname', has(facts.nickname.user, facts.nickname.user));
  await journal('channel_update', has(FIXTURE_IDS.channels.general, FIXTURE_IDS.admin));
  await journal('expression_update', has(facts.renamedEmoji.id, FIXTURE_IDS.admin));
  const grants = await journal('member_roles', (events) =>
    facts.eventTeam.every((id) => has(id, FIXTURE_IDS.admin)(events)),
  );
  expect(grants.filter((e) => facts.eventTeam.includes(e.target))).toHaveLength(3);
});

it("when the day's staff ban and kick members in the client and warn and time out by command, then each is a case naming them; the bot's own ban is none", async () => {
  const facts = sys.day;
  type Case = { number: number; action: string; moderator: string; reason: string; expiresAt: string | null };
  const casesOf = (target: string) =>
    waitFor(
      async () => {
        const res = await api.get(`/api/v1/servers/${sys.guild}/cases?target=${target}`);
        return res.status === 200 ? (res.body.cases as Case[]) : [];
      },
      (cases) => cases.length > 0,
      120_000,
    );
  expect(await casesOf(facts.bannedByModerator)).toEqual([
    expect.objectContaining({ action: 'ban', moderator: FIXTURE_IDS.moderator, reason: 'Spam: fake nitro links' }),
  ]);
  expect(facts.byCommand).toEqual({ warn: true, timeout: true });
  const rude = await waitFor(
    () => casesOf(facts.timedOut.user),
    (cases) => cases.length === 2,
    120_000,
  );
  expect(rude).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        action: 'warn',
        moderator: FIXTURE_IDS.admin,
        reason: 'Rude to the moderators in #general',
      }),
      expect.objectContaining({
        action: 'timeout',
        moderator: FIXTURE_IDS.admin,
        reason: 'Insulting other members (1 hour)',
        expiresAt: facts.timedOut.until,
      }),
    ]),
  );
  const [kick] = await casesOf(facts.kicked);
  expect(kick).toMatchObject({ action: 'kick', moderator: FIXTURE_IDS.admin, reason: 'Alt account of a banned user' });
  const detail = await api.get(`/api/v1/servers/${sys.guild}/cases/${kick!.number}`);
  expect(detail.body).toMatchObject({ origin: 'platform' });
  await waitFor(
    () => quietBusState(sys.namespace, sys.natsUrl),
    (state) => state !== null,
    60_000,
  );
  const botBanned = await api.get(`/api/v1/servers/${sys.guild}/cases?target=${facts.bannedByBot}`);
  expect(botBanned.body.cases).toEqual([]);
});
