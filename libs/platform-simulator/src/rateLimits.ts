import { createHash } from 'node:crypto';

const LIMIT = 50;
const WINDOW_SECONDS = 1;

function bucket(method: string, route: string): string {
  return createHash('sha1').update(`${method} ${route}`).digest('hex').slice(0, 32);
}

/** Discord's per-route rate-limit headers for a request that is not limited (plenty of requests left). */
export function rateLimitHeaders(method: string, route: string): Record<string, string> {
  const now = Date.now() / 1000;
  return {
    'X-RateLimit-Limit': String(LIMIT),
    'X-RateLimit-Remaining': String(LIMIT - 1),
    'X-RateLimit-Reset': (now + WINDOW_SECONDS).toFixed(3),
    'X-RateLimit-Reset-After': WINDOW_SECONDS.toFixed(3),
    'X-RateLimit-Bucket': bucket(method, route),
  };
}

/**
 * A 429 answer as Discord sends it: body `{ message, retry_after, global }`; headers `Retry-After` (whole
 * seconds, rounded up), `X-RateLimit-Scope` (`user` or `global`), `X-RateLimit-Global` for global limits,
 * and the route's bucket headers with nothing remaining.
 */
export function rateLimitedAnswer(method: string, route: string, retryAfterSeconds: number, global: boolean) {
  const headers: Record<string, string> = {
    ...rateLimitHeaders(method, route),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': (Date.now() / 1000 + retryAfterSeconds).toFixed(3),
    'X-RateLimit-Reset-After': retryAfterSeconds.toFixed(3),
    'Retry-After': String(Math.ceil(retryAfterSeconds)),
    'X-RateLimit-Scope': global ? 'global' : 'user',
  };
  if (global) headers['X-RateLimit-Global'] = 'true';
  return { headers, body: { message: 'You are being rate limited.', retry_after: retryAfterSeconds, global } };
}
