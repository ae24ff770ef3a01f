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

describe('SessionCache', () => {
  it('reuses a positive lookup within the TTL and reads again after it', async () => {
    const lookup = jest.fn(async () => session());
    const cache = new SessionCache(50, lookup);
    expect(await cache.find(RAW)).not.toBeNull();
    expect(await cache.find(RAW)).not.toBeNull();
    expect(lookup).toHaveBeenCalledTimes(1);
    await new Promise((r) => setTimeout(r, 60));
    await cache.find(RAW);
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('never caches a missing session, nor past the session expiry', async () => {
    const missing = jest.fn(async () => null);
    const cache = new SessionCache(10_000, missing);
    expect(await cache.find(RAW)).toBeNull();
    expect(await cache.find(RAW)).toBeNull();
    expect(missing).toHaveBeenCalledTimes(2);
    const expiring = jest.fn(async () => session(20));
    const short = new SessionCache(10_000, expiring);
    await short.find(RAW);
    await new Promise((r) => setTimeout(r, 30));
    await short.find(RAW);
    expect(expiring).toHaveBeenCalledTimes(2);
  });

  it('forget drops the entry at once, also when a lookup was in flight', async () => {
    let revoked = false;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const lookup = jest.fn(async (): Promise<Session | null> => {
      await gate;
      return session();
    });
    const cache = new SessionCache(10_000, lookup);
    const inFlight = cache.find(RAW);
    cache.forget(RAW);
    revoked = true;
    release();
    await inFlight;
    lookup.mockImplementation(async () => (revoked ? null : session()));
    expect(await cache.find(RAW)).toBeNull();
  });

  it('shares one lookup among concurrent misses', async () => {
    const lookup = jest.fn(async () => {
      await new Promise((r) => setTimeout(r, 20));
      return session();
    });
    const cache = new SessionCache(10_000, lookup);
    const found = await Promise.all(Array.from({ length: 20 }, () => cache.find(RAW)));
    expect(found.every((s) => s?.user.id === '169378578432131074')).toBe(true);
    expect(lookup).toHaveBeenCalledTimes(1);
  });

  it('with TTL 0 reads on every request', async () => {
    const lookup = jest.fn(async () => session());
    const cache = new SessionCache(0, lookup);
    await cache.find(RAW);
    await cache.find(RAW);
    expect(lookup).toHaveBeenCalledTimes(2);
  });
});
