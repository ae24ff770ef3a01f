import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** A staff identity provider for tests: an RS256 key pair whose public half is served as a JWKS over HTTP. */
export interface StaffIssuer {
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** Signs a staff access token (default: valid 10 minutes, `staff: true`). */
  token(
    claims?: Record<string, unknown>,
    opts?: { expiresIn?: string; audience?: string; issuer?: string },
  ): Promise<string>;
  /** A token signed by a key the JWKS does not hold. */
  forged(): Promise<string>;
  close(): Promise<void>;
}

/** Starts the issuer's JWKS server on a random loopback port. */
export async function startStaffIssuer(): Promise<StaffIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const stranger = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'staff-1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const jwksUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks.json`;
  const issuer = 'https://id.guildhall.test';
  const audience = 'guildhall-staff-api';
  const sign = (
    key: CryptoKey,
    claims: Record<string, unknown>,
    opts: { expiresIn?: string; audience?: string; issuer?: string },
  ) =>
    new SignJWT({ staff: true, username: 'ops.alice', name: 'Alice Ops', flag: 'admin', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'staff-1' })
      .setSubject((claims.sub as string) ?? '7d9f2c1e-4b7a-4c11-9a51-3f0b6f2d8e10')
      .setIssuer(opts.issuer ?? issuer)
      .setAudience(opts.audience ?? audience)
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(opts.expiresIn ?? '10m')
      .sign(key);
  return {
    jwksUrl,
    issuer,
    audience,
    token: (claims = {}, opts = {}) => sign(privateKey, claims, opts),
    forged: () => sign(stranger.privateKey, {}, {}),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
