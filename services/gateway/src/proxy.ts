import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { Agent } from 'node:http';
import type { Socket } from 'node:net';
import { type ApiRoute, IDENTITY_HEADER, type Logger, sendProblem, serviceUnavailable } from '@guildhall/shared';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware, type RequestHandler as ProxyHandler } from 'http-proxy-middleware';
import { guardStreamedBody } from './bodyLimit';
import type { GatewayConfig } from './config';
import { IdentityTokens } from './identityTokens';
import { gatewayState } from './state';

type Upstream = ApiRoute['service'];

/** Upstream base URL of each service, from config. */
export function upstreams(config: GatewayConfig): Record<Upstream, string> {
  return {
    moderation: config.MODERATION_URL,
    tickets: config.TICKETS_URL,
    logs: config.LOGS_URL,
    community: config.COMMUNITY_URL,
    billing: config.BILLING_URL,
  };
}

/**
 * Proxies a matched, authorized request to its route's service (http-proxy-middleware, one per service, keep-alive
 * agent each), path and query unchanged, body streamed (and counted against `bodyLimit` bytes on the way).
 * The service receives: the identity token (`x-guildhall-identity`, signed for 60 s and reused for the same caller for
 * 30 s, see `IdentityTokens`; an incoming one is always dropped), `x-request-id`, `x-forwarded-*`; never the caller's cookies, nor the staff bearer token (already
 * verified here). Webhook routes keep their headers (providers sign with them). An upstream that refuses the
 * connection or times out yields a 503 problem+json.
 */
export function proxyToServices(config: GatewayConfig, bodyLimit: number, logger: Logger): RequestHandler {
  const targets = upstreams(config);
  const proxies = Object.fromEntries(
    (Object.keys(targets) as Upstream[]).map((service) => [
      service,
      createProxyMiddleware<Request, Response>({
        target: targets[service],
        xfwd: true,
        agent: new Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 64, keepAliveMsecs: 10_000 }),
        proxyTimeout: config.UPSTREAM_TIMEOUT_MS,
        on: {
          proxyReq: (proxyReq: ClientRequest, _req, res) => {
            res.locals.proxyReq = proxyReq;
            if (res.locals.bodyTooLarge) proxyReq.destroy();
          },
          error: (err, req, res) => upstreamFailed(err, req as Request, res, service, logger),
        },
      }),
    ]),
  ) as unknown as Record<Upstream, ProxyHandler<Request, Response>>;
  const tokens = new IdentityTokens(config.IDENTITY_SECRET);

  return async (req: Request, res: Response, next: NextFunction) => {
    const state = gatewayState(res);
    delete req.headers.cookie;
    delete req.headers[IDENTITY_HEADER];
    if (state.route.auth === 'staff') delete req.headers.authorization;
    if (state.identity) {
      req.headers[IDENTITY_HEADER] = await tokens.token(state.identity);
    }
    guardStreamedBody(req, res, bodyLimit, () => (res.locals.proxyReq as ClientRequest | undefined)?.destroy());
    return proxies[state.route.service](req, res, next);
  };
}

function upstreamFailed(
  err: Error,
  req: IncomingMessage,
  res: ServerResponse | Socket,
  service: Upstream,
  logger: Logger,
): void {
  if (!('writeHead' in res)) {
    res.destroy();
    return;
  }
  const locals = (res as Response).locals;
  if (locals?.bodyTooLarge) return;
  logger.warn({ err, service, url: req.url }, 'upstream unavailable');
  if (res.headersSent) {
    res.end();
    return;
  }
  sendProblem(
    res,
    serviceUnavailable(
      `The ${service} service is unavailable (${(err as { code?: string }).code ?? err.message})`,
      'upstream_unavailable',
    ),
  );
}
