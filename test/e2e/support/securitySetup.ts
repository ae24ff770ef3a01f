import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { DASHBOARD_ORIGIN, quietBusState, type System, waitFor } from '@guildhall/testkit';
import { ChannelType } from 'discord-api-types/v10';
import { type Answer, ApiClient } from './client';
import type { Coverage } from './coverage';
import type { RealIds } from './securityCases';

/** A fixture member with no role at all (presses the ticket panel button during the day: `sys.day.ticketOpener`). */
export const PLAIN_MEMBER = '1084183422655660086';
/** The one cap the moderator's role gets, so the moderator is a staff member lacking every other cap. */
export const MODERATOR_CAP = 'structure.read';

/** Ids of the second guild (`sys.otherGuild`), read from the fake platform's seeded state. */
export interface OtherIds {
  guild: string;
  owner: string;
  role: string;
  textChannel: string;
  forum: string;
  tag: string;
  member: string;
}

/** Every caller the security suites use, as gateway clients sharing one coverage table. */
export interface Callers {
  anonymous: ApiClient;
  owner: ApiClient;
  moderator: ApiClient;
  member: ApiClient;
  outsider: ApiClient;
  staff: ApiClient;
}

/** What `prepareSecurityWorld` made: callers, their session ids, real ids of the fixture guild, the other guild's ids. */
export interface SecurityWorld {
  callers: Callers;
  /** Session id (cookie value) of the fixture guild's owner. */
  ownerSession: string;
  /** Session id of `PLAIN_MEMBER`. */
  memberSession: string;
  /** A valid staff bearer token. */
  staffToken: string;
  ids: RealIds;
  other: OtherIds;
}

/** Throws with the answer when its status is not `status` (setup steps must succeed). */
export function expectOk(res: Answer, status: number, what: string): Answer {
  if (res.status !== status)
    throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

/** The other guild's ids from the fake platform's state. */
export function otherGuildIds(sys: System): OtherIds {
  const g = sys.fake.guild(sys.otherGuild.id);
  if (!g) throw new Error('other guild not seeded');
  const roles = [...g.roles.values()].filter((r) => r.id !== g.id && !r.managed);
  const channels = [...g.channels.values()];
  const forum = channels.find((c) => c.type === ChannelType.GuildForum)!;
  // A member holding no role: below the bot's role, so the role hierarchy lets the owner act on them.
  const members = [...g.members.values()]
    .filter((m) => m.user.id !== g.owner_id && m.user.id !== sys.fake.botUserId && m.roles.length === 0)
    .map((m) => m.user.id);
  return {
    guild: g.id,
    owner: g.owner_id,
    role: roles[0]!.id,
    textChannel: channels.find((c) => c.type === ChannelType.GuildText)!.id,
    forum: forum.id,
    tag: forum.available_tags![0]!.id,
    member: members[0]!,
  };
}

/**
 * Drives the fixture guild's day through the system, signs everyone in, and creates through the API the records whose
 * ids the matrix needs: the moderator's role gets only `MODERATOR_CAP`, a warn case about `PLAIN_MEMBER`, a ticket
 * type, the panel and a ticket, the member's appeal, a pack, a promo batch (staff); then waits until every service
 * consumed it all. Returns the callers and the ids.
 */
export async function prepareSecurityWorld(sys: System, coverage: Coverage): Promise<SecurityWorld> {
  sys.fake.seedUser({
    id: PLAIN_MEMBER,
    username: 'plain-member',
    guilds: [{ id: sys.guild, name: 'Lantern Hall', owner: false, permissions: '0' }],
  });
  await sys.dayPlayer.play();
  const session = async (user: string) =>
    new ApiClient(sys.gatewayUrl, coverage, { cookie: await sys.login(user), origin: DASHBOARD_ORIGIN });
  const ownerSession = await sys.login(FIXTURE_IDS.owner);
  const memberSession = await sys.login(PLAIN_MEMBER);
  const staffToken = await sys.staffToken();
  const callers: Callers = {
    anonymous: new ApiClient(sys.gatewayUrl, coverage),
    owner: new ApiClient(sys.gatewayUrl, coverage, { cookie: ownerSession, origin: DASHBOARD_ORIGIN }),
    moderator: await session(FIXTURE_IDS.moderator),
    member: new ApiClient(sys.gatewayUrl, coverage, { cookie: memberSession, origin: DASHBOARD_ORIGIN }),
    outsider: await session(sys.otherGuild.owner),
    staff: new ApiClient(sys.gatewayUrl, coverage, { bearer: staffToken }),
  };
  const g = `/api/v1/servers/${sys.guild}`;
  const { owner } = callers;
  expectOk(
    await owner.put(`${g}/staff/${FIXTURE_IDS.roles.moderator}`, { caps: [MODERATOR_CAP] }),
    200,
    'grant the moderator role one cap',
  );
  const kase = expectOk(
    await owner.post(`${g}/cases`, { target: PLAIN_MEMBER, action: 'warn', reason: 'security suite: setup warning' }),
    201,
    'create a case',
  );
  const type = expectOk(
    await owner.post(`${g}/tickets/types`, { name: 'Security review', questions: [] }),
    201,
    'create a ticket type',
  );
  expectOk(
    await owner.post(`${g}/tickets/panel`, { channel: FIXTURE_IDS.channels.tickets }),
    200,
    'post the ticket panel',
  );
  const ticket = expectOk(
    await owner.post(`${g}/tickets`, { type: type.body.id, opener: PLAIN_MEMBER, answers: [] }),
    201,
    'open a ticket',
  );
  const appeal = expectOk(
    await callers.member.post(`/api/v1/record/${sys.guild}/appeals`, {
      text: 'I was only quoting someone else, please reconsider.',
      caseNumber: kase.body.number,
    }),
    201,
    'appeal the case',
  );
  const pack = expectOk(await owner.post(`${g}/packs`, { name: 'Security pack' }), 201, 'create a pack');
  const setup = expectOk(await owner.get(`${g}/setup`), 200, 'read the setup templates');
  const batch = expectOk(
    await callers.staff.post('/api/staff/promo', {
      note: 'security suite',
      days: 3,
      count: 2,
      redeem_by: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    }),
    201,
    'create a promo batch',
  );
  const journal = await waitFor(
    () => owner.get(`${g}/journal?kind=member_join&limit=1`),
    (r) => r.status === 200 && r.body.events.length === 1,
    30_000,
  );
  // Every service has consumed the day and the setup's events (the snapshots compare a quiet system).
  await waitFor(
    () => quietBusState(sys.namespace, sys.natsUrl),
    (state) => state !== null,
    120_000,
  );
  const fixture = sys.fake.guild(sys.guild)!;
  const ids: RealIds = {
    guild: sys.guild,
    member: PLAIN_MEMBER,
    textChannel: FIXTURE_IDS.channels.general,
    panelChannel: FIXTURE_IDS.channels.tickets,
    role: FIXTURE_IDS.roles.regular,
    staffRole: FIXTURE_IDS.roles.moderator,
    staffRoleCaps: [MODERATOR_CAP],
    forum: FIXTURE_IDS.channels.suggestions,
    tag: FIXTURE_IDS.tags.idea,
    thread: FIXTURE_IDS.olderPost,
    emoji: [...fixture.emojis.keys()][0]!,
    caseNumber: kase.body.number,
    ticketNumber: ticket.body.number,
    ticketType: type.body.id,
    appeal: appeal.body.id,
    report: 'ffffffffffffffffffffffff',
    journalEvent: journal.body.events[0].id,
    pack: pack.body.id,
    template: setup.body.templates[0].key,
    batch: batch.body.batch.id,
    code: batch.body.codes[0].code,
  };
  return { callers, ownerSession, memberSession, staffToken, ids, other: otherGuildIds(sys) };
}
