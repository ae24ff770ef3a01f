/**
 * Fault: the bridge process is killed with SIGKILL in the middle of the recorded day, while the platform keeps sending
 * it; started again, it RESUMEs the persisted session (no new IDENTIFY), the platform replays what it missed, and every
 * dispatch of the day is in the PLATFORM stream exactly once and reaches the services.
 */
import { guildDay } from '@guildhall/platform-simulator';
import { createLogger, EventBus } from '@guildhall/shared';
import { DASHBOARD_ORIGIN, type System, startSystem, testNatsUrl, USERS, waitFor } from '@guildhall/testkit';
import { ApiClient } from '../e2e/support/client';
import { Coverage } from '../e2e/support/coverage';

let sys: System;
let bus: EventBus;

/** A dispatch's identity: its name and data (the gateway's sequence numbers differ from the recording's). */
const keyOf = (p: { t: string; d: unknown }) => `${p.t} ${JSON.stringify(p.d)}`;

/** Every dispatch in the namespace's PLATFORM stream, in stream order. */
async function stored(): Promise<Array<{ t: string; d: unknown }>> {
  const name = bus.streamName('PLATFORM');
  const info = await bus.jsm.streams.info(name);
  const out: Array<{ t: string; d: unknown }> = [];
  for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
    const m = await bus.jsm.streams.getMessage(name, { seq });
    if (m) out.push(m.json());
  }
  return out;
}

const storedCount = async () => (await bus.jsm.streams.info(bus.streamName('PLATFORM'))).state.messages;

beforeAll(async () => {
  sys = await startSystem({ day: 'play' });
  bus = await EventBus.connect({
    url: testNatsUrl(),
    name: 'faults-bridge',
    namespace: sys.namespace,
    logger: createLogger('faults-bridge', 'silent'),
  });
}, 120_000);
afterAll(async () => {
  await bus?.close();
  await sys?.stop();
});

it('resumes after kill -9 in the middle of the day and stores every dispatch of the day exactly once', async () => {
  const half = Math.floor(sys.dayPlayer.total / 2);
  await sys.dayPlayer.play(half);
  await waitFor(storedCount, (n) => n >= half / 2, 20_000);
  await sys.stack.kill('bridge', 'SIGKILL');
  const identifies = sys.fake.gateway.identifies;
  expect(await sys.dayPlayer.play()).toBe(0);
  await sys.stack.start('bridge');
  expect(sys.fake.gateway.identifies).toBe(identifies);

  // What the platform sends the bridge: not the recording's GUILD_CREATE and member chunk (the simulator sends its
  // own), nor WEBHOOKS_UPDATE (the bridge's intents leave out GUILD_WEBHOOKS: no service consumes it).
  const notSent = new Set(['GUILD_CREATE', 'GUILD_MEMBERS_CHUNK', 'WEBHOOKS_UPDATE']);
  const day = guildDay(sys.dayStart).payloads.filter((p) => !notSent.has(p.t));
  const tally = (list: Array<{ t: string; d: unknown }>) => {
    const counts = new Map<string, number>();
    for (const p of list) counts.set(keyOf(p), (counts.get(keyOf(p)) ?? 0) + 1);
    return counts;
  };
  const expected = tally(day);
  const ofDay = (list: Array<{ t: string; d: unknown }>) => list.filter((p) => expected.has(keyOf(p)));
  const everything = await waitFor(stored, (list) => ofDay(list).length >= day.length, 60_000);
  expect(everything.filter((p) => p.t === 'RESUMED')).toHaveLength(1);
  const all = ofDay(everything);
  expect(all).toHaveLength(day.length);
  expect(tally(all)).toEqual(expected);

  const api = new ApiClient(sys.gatewayUrl, new Coverage(), {
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
  const bans = day.filter((p) => p.t === 'GUILD_BAN_ADD').length;
  const journal = await waitFor(
    () => api.get(`/api/v1/servers/${sys.guild}/journal?kind=member_ban&limit=100`),
    (r) => r.status === 200 && r.body.events.length >= bans,
    30_000,
  );
  expect(journal.body.events).toHaveLength(bans);
  const deleted = await api.get(`/api/v1/servers/${sys.guild}/messages?deleted=true&limit=100`);
  expect(deleted.body.messages.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(sys.day.spamMessages));
}, 180_000);
