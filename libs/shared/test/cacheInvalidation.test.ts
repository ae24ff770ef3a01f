import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import { LRUCache } from 'lru-cache';
import {
  broadcastInvalidation,
  createLogger,
  dispatchSubject,
  dropKey,
  EventBus,
  onDispatches,
  onInvalidation,
  type Stoppable,
} from '../src';

const logger = createLogger('cache-invalidation-test', 'silent');
const namespace = testNamespace();
const buses: EventBus[] = [];
const stops: Stoppable[] = [];

/** One replica's NATS connection (same namespace as the others). */
async function replica(): Promise<EventBus> {
  const bus = await EventBus.connect({ url: testNatsUrl(), name: `replica-${buses.length}`, namespace, logger });
  buses.push(bus);
  return bus;
}

afterAll(async () => {
  for (const stop of stops) await stop.stop();
  for (const bus of buses) await bus.close();
  await deleteNamespace(namespace);
});

describe('cache invalidation across replicas', () => {
  it('drops the broadcast keys (exact and `prefix*`) on every replica, the sender included', async () => {
    const [a, b] = [await replica(), await replica()];
    const caches = [a, b].map(() => {
      const cache = new LRUCache<string, string>({ max: 100 });
      for (const key of ['g1:u1', 'g1:u2', 'g2:u1']) cache.set(key, 'answer');
      return cache;
    });
    stops.push(onInvalidation(a, 'access', (key) => dropKey(caches[0]!, key), logger));
    stops.push(onInvalidation(b, 'access', (key) => dropKey(caches[1]!, key), logger));
    // Subscriptions are live once the server has them.
    await Promise.all([a.nc.flush(), b.nc.flush()]);

    broadcastInvalidation(a, 'access', ['g2:u1']);
    await waitFor(
      () => caches.map((c) => [...c.keys()].sort().join(',')),
      (keys) => keys.every((k) => k === 'g1:u1,g1:u2'),
      2_000,
    );
    // Another cache's messages are not this one's; a malformed message changes nothing.
    broadcastInvalidation(b, 'session', ['g1:u1']);
    b.nc.publish(b.subject('cache.invalidate.access'), 'not json');
    broadcastInvalidation(b, 'access', ['g1:*']);
    await waitFor(
      () => caches.map((c) => c.size),
      (sizes) => sizes.every((n) => n === 0),
      2_000,
    );
  });

  it('hands platform dispatches to every replica through onDispatches, skipping unreadable ones', async () => {
    const [a, b] = [await replica(), await replica()];
    const seen: string[][] = [[], []];
    for (const [i, bus] of [a, b].entries()) {
      const handle = ({ d }: { d: { guild_id: string; user: { id: string } } }) =>
        seen[i]!.push(`${d.guild_id}:${d.user.id}`);
      stops.push(onDispatches(bus, ['GUILD_MEMBER_UPDATE'], handle, logger));
    }
    await Promise.all([a.nc.flush(), b.nc.flush()]);
    const d = { guild_id: '81384788765712384', user: { id: '80351110224678912' }, roles: [] };
    const subject = dispatchSubject('GUILD_MEMBER_UPDATE', d);
    a.nc.publish(a.subject(subject), JSON.stringify({ op: 0, t: 'GUILD_MEMBER_UPDATE', s: 1, d: 'broken' }));
    a.nc.publish(a.subject(subject), JSON.stringify({ op: 0, t: 'GUILD_MEMBER_UPDATE', s: 2, d }));
    await waitFor(
      () => seen,
      (s) => s.every((list) => list.length === 1),
      2_000,
    );
    expect(seen).toEqual([['81384788765712384:80351110224678912'], ['81384788765712384:80351110224678912']]);
  });
});
