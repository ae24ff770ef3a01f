import { LoadingCache } from '../src/loadingCache';

/** A load that resolves with `value` when its `release` is called. */
function gated<V>(value: V) {
  let release: () => void = () => undefined;
  const done = new Promise<void>((r) => {
    release = r;
  });
  return { load: jest.fn(async () => (await done, value)), release: () => release() };
}

describe('LoadingCache', () => {
  it('keeps a load started after forget shared, even when the forgotten load finishes later', async () => {
    const cache = new LoadingCache<string>(10);
    const keep = () => Date.now() + 60_000;
    const first = gated('before revocation');
    const stale = cache.get('k', first.load, keep);
    cache.forget('k');
    const second = gated('after revocation');
    const fresh = cache.get('k', second.load, keep);
    first.release();
    await stale;
    const third = gated('must not load');
    const shared = cache.get('k', third.load, keep);
    second.release();
    expect(await fresh).toBe('after revocation');
    expect(await shared).toBe('after revocation');
    expect(third.load).not.toHaveBeenCalled();
    expect(await cache.get('k', third.load, keep)).toBe('after revocation');
  });

  it('evicts the oldest entry beyond its bound and does not keep values keepUntil refuses', async () => {
    const cache = new LoadingCache<number>(2);
    const keep = () => Date.now() + 60_000;
    await cache.get('a', async () => 1, keep);
    await cache.get('b', async () => 2, keep);
    await cache.get('c', async () => 3, keep);
    const reload = jest.fn(async () => 10);
    expect(await cache.get('a', reload, keep)).toBe(10);
    expect(await cache.get('c', reload, keep)).toBe(3);
    await cache.get(
      'n',
      async () => 0,
      () => null,
    );
    expect(await cache.get('n', reload, () => null)).toBe(10);
  });
});
