import { HttpProblem, sendProblem } from '@guildhall/shared';
import type { Request, RequestHandler, Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { GatewayContext } from './config';
import { SharedWindowStore } from './rateLimitStore';
import { maybeGatewayState } from './state';

function exceeded(scope: string) {
  return (req: Request, res: Response) => {
    const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
    const seconds = Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now() + 1000) - Date.now()) / 1000));
    res.setHeader('retry-after', String(seconds));
    sendProblem(
      res,
      new HttpProblem(429, `Too many requests ${scope}; retry in ${seconds} s`, { retryAfter: seconds }),
    );
  };
}

/**
 * Per-client-IP limit: `RATE_LIMIT_PER_IP` requests per `RATE_LIMIT_WINDOW_MS` (IPv6 grouped by /56), counted across
 * every gateway replica (NATS key-value bucket, see `SharedWindowStore`; a restarted replica keeps counting). Answers
 * carry draft-8 `RateLimit` / `RateLimit-Policy` headers (policy `ip`); a refused request gets 429 problem+json with
 * `Retry-After` (seconds).
 */
export function ipRateLimit(ctx: GatewayContext): RequestHandler {
  const { config } = ctx;
  return rateLimit({
    store: new SharedWindowStore(ctx.bus, 'ip', ctx.logger),
    windowMs: config.RATE_LIMIT_WINDOW_MS,
    limit: config.RATE_LIMIT_PER_IP,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'ip',
    ipv6Subnet: 56,
    handler: exceeded('from this address'),
  });
}

/**
 * Per-user limit: `RATE_LIMIT_PER_USER` requests per window for each signed-in caller (session user id, or staff
 * sub), across every gateway replica like `ipRateLimit`; requests without a principal (webhooks) are not counted here.
 * Headers as `ipRateLimit` (policy `user`).
 */
export function userRateLimit(ctx: GatewayContext): RequestHandler {
  const { config } = ctx;
  return rateLimit({
    store: new SharedWindowStore(ctx.bus, 'user', ctx.logger),
    windowMs: config.RATE_LIMIT_WINDOW_MS,
    limit: config.RATE_LIMIT_PER_USER,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'user',
    skip: (_req, res) => !maybeGatewayState(res)?.principal,
    keyGenerator: (_req, res) => {
      const principal = maybeGatewayState(res)?.principal;
      return principal?.kind === 'staff' ? `staff:${principal.sub}` : `user:${principal?.user.id}`;
    },
    handler: exceeded('for this user'),
  });
}
