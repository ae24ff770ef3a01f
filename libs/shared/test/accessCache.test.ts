import { AccessCache, type AccessReply } from '@guildhall/shared';

const reply: AccessReply = { member: true, owner: false, permissions: [], roles: ['1'], caps: ['cases.read'] };

/** A clock the test moves by hand (ms). */
function manualClock() {
  let now = 1_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A question whose answer comes when `release` is called. */
function gated(value: AccessReply) {
  let release: () => void = () => undefined;
  const done = new Promise<void>((r) => {
    release = r;
  });
  return { ask: jest.fn(async () => (await done, value)), release: () => release() };
}

describe('AccessCache', () => {
  it('asks once for concurrent misses of one guild and user, and again only after the TTL', async () => {
    const clock = manualClock();
    const gate = gated(reply);
    const cache = new AccessCache(gate.ask, 50, clock);
    const pending = Array.from({ length: 20 }, () => cache.get('10', '20'));
    gate.release();
    const answers = await Promise.all(pending);
    expect(answers.every((a) => a.caps[0] === 'cases.read')).toBe(true);
    expect(gate.ask).toHaveBeenCalledTimes(1);
    await cache.get('10', '21');
    expect(gate.ask).toHaveBeenCalledTimes(2);
    clock.advance(49);
    await cache.get('10', '20');
    expect(gate.ask).toHaveBeenCalledTimes(2);
    clock.advance(2);
    await cache.get('10', '20');
    expect(gate.ask).toHaveBeenCalledTimes(3);
  });

  it('does not keep a failed question: the next request asks again', async () => {
    const ask = jest.fn().mockRejectedValueOnce(new Error('community down')).mockResolvedValue(reply);
    const cache = new AccessCache(ask, 10_000);
    await expect(cache.get('10', '20')).rejects.toThrow('community down');
    await expect(cache.get('10', '20')).resolves.toEqual(reply);
    expect(ask).toHaveBeenCalledTimes(2);
  });

  it("hands a question's timeout to the asker (cached or not)", async () => {
    const ask = jest.fn(async () => reply);
    await new AccessCache(ask, 10_000).get('10', '20', 750);
    await new AccessCache(ask, 0).get('10', '20');
    expect(ask.mock.calls).toEqual([
      [{ guild: '10', user: '20' }, 750],
      [{ guild: '10', user: '20' }, undefined],
    ]);
  });

  it('when a member is timed out, then their answer is kept only until the timeout ends, not the whole TTL', async () => {
    const clock = manualClock();
    let wall = Date.parse('2026-01-01T00:00:00Z');
    const timedOut: AccessReply = { ...reply, caps: [], timedOutUntil: '2026-01-01T00:00:05Z' };
    const ask = jest.fn().mockResolvedValueOnce(timedOut).mockResolvedValue(reply);
    const cache = new AccessCache(ask, 60_000, clock, () => wall);
    expect((await cache.get('10', '20')).caps).toEqual([]);
    clock.advance(4_999);
    wall += 4_999;
    expect((await cache.get('10', '20')).caps).toEqual([]);
    expect(ask).toHaveBeenCalledTimes(1);
    clock.advance(2);
    wall += 2;
    expect((await cache.get('10', '20')).caps).toEqual(['cases.read']);
    expect(ask).toHaveBeenCalledTimes(2);
    clock.advance(59_000);
    await cache.get('10', '20');
    expect(ask).toHaveBeenCalledTimes(2);
  });

  it('with TTL 0 asks on every request', async () => {
    const ask = jest.fn(async () => reply);
    const cache = new AccessCache(ask, 0);
    await cache.get('10', '20');
    await cache.get('10', '20');
    expect(ask).toHaveBeenCalledTimes(2);
  });
});
