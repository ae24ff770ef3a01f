import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

/** What an echo upstream received. */
export interface Echoed {
  service: string;
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP server standing in for a service: answers 200 with what it received, as JSON. */
export async function startEcho(service: string): Promise<{ url: string; received: Echoed[]; close(): Promise<void> }> {
  const received: Echoed[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const echoed: Echoed = {
        service,
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(echoed);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(echoed));
    });
  });
  return { url: await listen(server), received, close: () => close(server) };
}

/** An RS256 key pair, a JWKS server publishing its public key, and a signer of test staff tokens. */
export async function startJwks(): Promise<{
  url: string;
  sign(claims: JWTPayload, opts?: { issuer?: string; audience?: string; expiresIn?: string | number }): Promise<string>;
  close(): Promise<void>;
}> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  const url = await listen(server);
  return {
    url: `${url}/.well-known/jwks.json`,
    async sign(claims, opts = {}) {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuedAt()
        .setIssuer(opts.issuer ?? 'https://id.test')
        .setAudience(opts.audience ?? 'guildhall');
      if (opts.expiresIn !== undefined) jwt.setExpirationTime(opts.expiresIn);
      return jwt.sign(privateKey);
    },
    close: () => close(server),
  };
}

/** Listens on a random local port; resolves the base URL. */
export function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

/** Closes a server and its idle keep-alive connections. */
export function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
