import type { Session } from '../src/auth/session';
import { SessionCache } from '../src/auth/sessionCache';

const RAW = 'a'.repeat(43);

function session(expiresInMs = 3_600_000): Session {
  return {
    user: { id: '169378578432131074', username: 'rowan89', name: 'Rowan', avatar: null },
    guilds: [],
    expiresAt: new Date(Date.now() + expiresInMs),
  };
}

/** A clock the test moves by hand (ms). */
function manualClock() {
  let now = 1_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A lookup answering `value` when its `release` is called. */
function gated(value: Session | null) {
  let release: () => void = () => undefined;
  const done = new Promise<void>((r) => {
    release = r;
  });
  return { lookup: jest.fn(async () => (await done, value)), release: () => release() };
}

describe('SessionCache', () => {
  it('reuses a positive lookup within the TTL and reads again after it', async () => {
    const clock = manualClock();
    const lookup = jest.fn(async () => session());
    const cache = new SessionCache(50, lookup, clock);
    expect(await cache.find(RAW)).not.toBeNull();
    clock.advance(49);
    expect(await cache.find(RAW)).not.toBeNull();
    expect(lookup).toHaveBeenCalledTimes(1);
    clock.advance(2);
    await cache.find(RAW);
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('never caches a missing session, nor past the session expiry', async () => {
    const clock = manualClock();
    const missing = jest.fn(async () => null);
    const cache = new SessionCache(10_000, missing, clock);
    expect(await cache.find(RAW)).toBeNull();
    expect(await cache.find(RAW)).toBeNull();
    expect(missing).toHaveBeenCalledTimes(2);
    const expiring = jest.fn(async () => session(1_000));
    const short = new SessionCache(10_000, expiring, clock);
    await short.find(RAW);
    clock.advance(1_001);
    await short.find(RAW);
    expect(expiring).toHaveBeenCalledTimes(2);
  });

  it('forget drops the entry at once; the lookup then in flight answers its caller but is not kept', async () => {
    const before = gated(session());
    const cache = new SessionCache(10_000, before.lookup);
    const inFlight = cache.find(RAW);
    cache.forget(RAW);
    before.release();
    expect(await inFlight).not.toBeNull();
    before.lookup.mockImplementation(async () => null);
    expect(await cache.find(RAW)).toBeNull();
  });

  it('a lookup started after forget is shared and kept, even when the forgotten one finishes later', async () => {
    const stale = gated(session());
    const fresh = gated({ ...session(), guilds: [{ id: '1', name: 'after', icon: null, owner: false }] } as Session);
    const lookup = jest.fn().mockImplementationOnce(stale.lookup).mockImplementationOnce(fresh.lookup);
    const cache = new SessionCache(10_000, lookup);
    const first = cache.find(RAW);
    cache.forget(RAW);
    const second = cache.find(RAW);
    stale.release();
    await first;
    const shared = cache.find(RAW);
    fresh.release();
    expect((await second)?.guilds).toHaveLength(1);
    expect((await shared)?.guilds).toHaveLength(1);
    expect((await cache.find(RAW))?.guilds).toHaveLength(1);
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('a forgotten lookup that finds no session answers null, not an error', async () => {
    const gone = gated(null);
    const cache = new SessionCache(10_000, gone.lookup);
    const inFlight = cache.find(RAW);
    cache.forget(RAW);
    gone.release();
    await expect(inFlight).resolves.toBeNull();
  });

  it('shares one lookup among concurrent misses', async () => {
    const gate = gated(session());
    const cache = new SessionCache(10_000, gate.lookup);
    const pending = Array.from({ length: 20 }, () => cache.find(RAW));
    gate.release();
    const found = await Promise.all(pending);
    expect(found.every((s) => s?.user.id === '169378578432131074')).toBe(true);
    expect(gate.lookup).toHaveBeenCalledTimes(1);
  });

  it('with TTL 0 reads on every request', async () => {
    const lookup = jest.fn(async () => session());
    const cache = new SessionCache(0, lookup);
    await cache.find(RAW);
    await cache.find(RAW);
    expect(lookup).toHaveBeenCalledTimes(2);
  });
});
