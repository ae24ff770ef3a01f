import { AsyncLocalStorage } from 'node:async_hooks';

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `requestId` as the current request id (HTTP request or consumed NATS message). */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

/** The request id of the HTTP request or NATS message being handled, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
