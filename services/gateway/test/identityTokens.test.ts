import { type Identity, verifyIdentity } from '@guildhall/shared';
import { IDENTITY_TOKEN_REUSE_MS, IDENTITY_TOKEN_TTL_S, IdentityTokens } from '../src/identityTokens';

const SECRET = 'i'.repeat(40);
const admin: Identity = {
  kind: 'user',
  sub: '100',
  name: 'Admin',
  username: 'admin',
  avatar: null,
  flag: '',
  guild: '200',
  caps: ['cases.read', 'cases.write'],
};

/** A clock the test moves by hand (ms). */
function manualClock() {
  let now = 1_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('IdentityTokens', () => {
  it('reuses one signed token per identity within the reuse window and signs a new one after it', async () => {
    const clock = manualClock();
    const tokens = new IdentityTokens(SECRET, clock);
    const first = await tokens.token(admin);
    expect(await verifyIdentity(first, SECRET)).toMatchObject({ sub: '100', guild: '200', caps: admin.caps });
    const [a, b] = await Promise.all([tokens.token({ ...admin }), tokens.token({ ...admin, caps: [...admin.caps] })]);
    expect(a).toBe(first);
    expect(b).toBe(first);
    clock.advance(IDENTITY_TOKEN_REUSE_MS);
    expect(await tokens.token(admin)).toBe(first);
    clock.advance(1);
    jest.useFakeTimers({ now: Date.now() + IDENTITY_TOKEN_REUSE_MS, doNotFake: ['nextTick', 'setImmediate'] });
    try {
      const next = await tokens.token(admin);
      expect(next).not.toBe(first);
      expect(await verifyIdentity(next, SECRET)).toMatchObject({ sub: '100' });
    } finally {
      jest.useRealTimers();
    }
    expect(IDENTITY_TOKEN_REUSE_MS).toBeLessThan(IDENTITY_TOKEN_TTL_S * 1000);
  });

  it('signs another token when the guild, the caps or the caller differ', async () => {
    const tokens = new IdentityTokens(SECRET, manualClock());
    const base = await tokens.token(admin);
    const others = await Promise.all([
      tokens.token({ ...admin, guild: '201' }),
      tokens.token({ ...admin, caps: ['cases.read'] }),
      tokens.token({ ...admin, sub: '101' }),
      tokens.token({ ...admin, name: 'Renamed' }),
    ]);
    expect(new Set([base, ...others]).size).toBe(5);
    expect(await verifyIdentity(others[1], SECRET)).toMatchObject({ caps: ['cases.read'] });
  });
});
