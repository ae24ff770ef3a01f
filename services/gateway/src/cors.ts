import cors from 'cors';
import type { RequestHandler } from 'express';

/**
 * CORS for the dashboard: only the configured origins, with credentials (the session cookie). Preflights are
 * answered here (204, cached 10 minutes); requests may carry `Content-Type`, `X-Request-Id` and `Idempotency-Key`.
 * Exposes the request id and the rate-limit headers to the dashboard.
 */
export function dashboardCors(origins: string[]): RequestHandler {
  return cors({
    origin: origins,
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['content-type', 'x-request-id', 'idempotency-key'],
    exposedHeaders: ['x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after'],
    maxAge: 600,
  });
}
