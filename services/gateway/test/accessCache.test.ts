import type { AccessReply } from '@guildhall/shared';
import { AccessCache } from '../src/access';

const reply: AccessReply = { member: true, owner: false, permissions: [], roles: ['1'], caps: ['cases.read'] };

describe('AccessCache', () => {
  it('asks once for concurrent misses of one guild and user, and again after the TTL', async () => {
    const ask = jest.fn(async () => {
      await new Promise((r) => setTimeout(r, 20));
      return reply;
    });
    const cache = new AccessCache(ask, 50);
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.get('10', '20')));
    expect(answers.every((a) => a.caps[0] === 'cases.read')).toBe(true);
    expect(ask).toHaveBeenCalledTimes(1);
    await cache.get('10', '21');
    expect(ask).toHaveBeenCalledTimes(2);
    await new Promise((r) => setTimeout(r, 60));
    await cache.get('10', '20');
    expect(ask).toHaveBeenCalledTimes(3);
  });

  it('does not keep a failed question: the next request asks again', async () => {
    const ask = jest.fn().mockRejectedValueOnce(new Error('community down')).mockResolvedValue(reply);
    const cache = new AccessCache(ask, 10_000);
    await expect(cache.get('10', '20')).rejects.toThrow('community down');
    await expect(cache.get('10', '20')).resolves.toEqual(reply);
    expect(ask).toHaveBeenCalledTimes(2);
  });
});
