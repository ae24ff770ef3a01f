import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JwksServer, startJwksServer } from '@guildhall/testkit';

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

/** The staff identity provider of the gateway tests: a JWKS server (issuer https://id.test, audience guildhall). */
export function startJwks(): Promise<JwksServer> {
  return startJwksServer('k1', { issuer: 'https://id.test', audience: 'guildhall' });
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
