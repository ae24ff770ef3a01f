import pino, { type Logger } from 'pino';
import { currentRequestId } from './requestContext';

export type { Logger };

/**
 * A pino logger named after the service. Every line logged inside a request (or a NATS message handler
 * that restored the context) carries that request's `requestId`.
 */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name,
    level,
    mixin() {
      const requestId = currentRequestId();
      return requestId ? { requestId } : {};
    },
  });
}
