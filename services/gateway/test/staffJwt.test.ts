import { HttpProblem } from '@guildhall/shared';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { staffVerifier } from '../src/auth/staffJwt';
import type { GatewayConfig } from '../src/config';

const SUB = '0c8e2f4e-9c1a-4d5e-8f00-0123456789ab';

async function setup(alg: 'ES256' | 'RS256') {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const sign = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg })
      .setIssuer('iss')
      .setAudience('aud')
      .setExpirationTime('2m')
      .sign(privateKey);
  return { publicKey, sign };
}

function config(key: string, alg: string): GatewayConfig {
  return {
    STAFF_JWKS_URL: '',
    STAFF_JWT_PUBLIC_KEY: key,
    STAFF_JWT_ISSUER: 'iss',
    STAFF_JWT_AUDIENCE: 'aud',
    STAFF_JWT_ALGS: [alg],
  } as GatewayConfig;
}

async function status(p: Promise<unknown>): Promise<number> {
  return p.then(
    () => 200,
    (err) => (err instanceof HttpProblem ? err.status : 500),
  );
}

describe('staff JWT verifier with a configured key', () => {
  it('accepts a PEM (SPKI) key; a role list counts as the staff claim', async () => {
    const { publicKey, sign } = await setup('ES256');
    const verify = staffVerifier(config(await exportSPKI(publicKey), 'ES256'));
    const staff = await verify(await sign({ sub: SUB, staff: ['promo'], username: 'bo', flag: 'ops' }));
    expect(staff).toEqual({ kind: 'staff', sub: SUB, username: 'bo', name: 'bo', flag: 'ops' });
    expect(await status(verify(await sign({ sub: SUB, staff: [] })))).toBe(403);
    expect(await status(verify(await sign({ sub: 'not-a-uuid', staff: true })))).toBe(401);
  });

  it('accepts a JWK given as JSON and refuses tokens of another algorithm', async () => {
    const { publicKey, sign } = await setup('RS256');
    const verify = staffVerifier(config(JSON.stringify(await exportJWK(publicKey)), 'RS256'));
    expect((await verify(await sign({ sub: SUB, staff: true }))).sub).toBe(SUB);
    const other = await setup('ES256');
    expect(await status(verify(await other.sign({ sub: SUB, staff: true })))).toBe(401);
  });

  it('answers 503 when no staff key is configured', async () => {
    expect(await status(staffVerifier(config('', 'RS256'))('x.y.z'))).toBe(503);
  });
});
