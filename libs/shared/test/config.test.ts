import { ConfigError, loadConfig, signIdentity, verifyIdentity } from '@guildhall/shared';
import { z } from 'zod';

describe('config', () => {
  it('names every missing or invalid variable', () => {
    expect(() => loadConfig({ EXTRA: z.string() }, { PORT: 'x', IDENTITY_SECRET: 'short' })).toThrow(ConfigError);
    try {
      loadConfig({ EXTRA: z.string() }, { PORT: 'x', IDENTITY_SECRET: 'short' });
    } catch (err) {
      const names = (err as ConfigError).problems.map((p) => p.split(':')[0]);
      expect(names).toEqual(expect.arrayContaining(['PORT', 'MONGO_URL', 'MONGO_DB', 'IDENTITY_SECRET', 'EXTRA']));
    }
  });

  it('applies defaults and coerces numbers', () => {
    const config = loadConfig(
      {},
      { PORT: '8080', MONGO_URL: 'mongodb://x', MONGO_DB: 'd', IDENTITY_SECRET: 'x'.repeat(32) },
    );
    expect(config.PORT).toBe(8080);
    expect(config.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(config.VALIDATE_RESPONSES).toBe(false);
  });
});

describe('identity token', () => {
  const secret = 's'.repeat(40);
  it('round-trips and rejects another key or an expired token', async () => {
    const token = await signIdentity({ kind: 'user', sub: '1', name: 'n', guild: '2', caps: ['cases.read'] }, secret);
    await expect(verifyIdentity(token, secret)).resolves.toMatchObject({ sub: '1', guild: '2', caps: ['cases.read'] });
    await expect(verifyIdentity(token, 'x'.repeat(40))).rejects.toThrow();
    const expired = await signIdentity({ kind: 'user', sub: '1', name: 'n' }, secret, -10);
    await expect(verifyIdentity(expired, secret)).rejects.toThrow();
  });

  it('keeps refusing a remembered token once it expires, and under another secret', async () => {
    jest.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z'), doNotFake: ['nextTick', 'setImmediate'] });
    try {
      const token = await signIdentity({ kind: 'user', sub: '7', name: 'n', guild: '2' }, secret, 5);
      const first = await verifyIdentity(token, secret);
      expect(first).toMatchObject({ sub: '7', guild: '2' });
      expect(Object.isFrozen(first)).toBe(true);
      await expect(verifyIdentity(token, secret)).resolves.toBe(first);
      await expect(verifyIdentity(token, 'y'.repeat(40))).rejects.toThrow();
      jest.setSystemTime(new Date('2030-01-01T00:00:04.900Z'));
      await expect(verifyIdentity(token, secret)).resolves.toBe(first);
      jest.setSystemTime(new Date('2030-01-01T00:00:05.000Z'));
      await expect(verifyIdentity(token, secret)).rejects.toThrow();
    } finally {
      jest.useRealTimers();
    }
  });
});
