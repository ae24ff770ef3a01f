import mongoose from 'mongoose';
import { HttpProblem } from './http/problem';

const { MongoError, MongoErrorLabel, MongoNetworkError, MongoServerSelectionError, MongoNotConnectedError } =
  mongoose.mongo;
const { MongoTopologyClosedError, MongoServerClosedError, MongoClientClosedError } = mongoose.mongo;

/**
 * Labels the driver puts on errors of a server that is going away or not reachable (network errors, a pool cleared
 * by one, a server shutting down or stepping down): the operation may succeed when retried.
 */
const UNAVAILABLE_LABELS = [
  MongoErrorLabel.RetryableWriteError,
  MongoErrorLabel.ResetPool,
  MongoErrorLabel.PoolRequestedRetry,
  MongoErrorLabel.RetryableError,
];

/**
 * True for the driver's and mongoose's "no server" errors: server selection timed out, the connection broke
 * mid-operation (network errors, including a pool cleared by one), the server or client closed, an error the driver
 * labels retryable (shutdown in progress, primary stepped down), the client is not or no longer connected, or an
 * operation waited in mongoose's buffer past `bufferTimeoutMS` while disconnected.
 */
export function isMongoUnavailable(e: unknown): boolean {
  if (
    e instanceof MongoNetworkError ||
    e instanceof MongoServerSelectionError ||
    e instanceof MongoNotConnectedError ||
    e instanceof MongoTopologyClosedError ||
    e instanceof MongoServerClosedError ||
    e instanceof MongoClientClosedError
  )
    return true;
  if (e instanceof MongoError && UNAVAILABLE_LABELS.some((label) => e.hasErrorLabel(label))) return true;
  const { name, message } = (e ?? {}) as { name?: string; message?: string };
  if (name === 'MongooseServerSelectionError') return true;
  return name === 'MongooseError' && /buffering timed out|Connection was force closed/.test(message ?? '');
}

/** Names of the NATS client's errors of a connection that is down or a peer that did not answer in time. */
const NATS_UNAVAILABLE = new Set([
  'TimeoutError',
  'NoRespondersError',
  'RequestError',
  'ConnectionError',
  'ClosedConnectionError',
  'DrainingConnectionError',
]);

/**
 * True for an error of the infrastructure rather than of the work: MongoDB unavailable (`isMongoUnavailable`), a
 * dependency down as the services answer it (`HttpProblem` 503: a peer that did not answer, the bot user not known
 * yet), a NATS connection down or a request timed out (by the NATS client's error names; `TimeoutError` is also the
 * name of an `AbortSignal.timeout`), looked for along the error's `cause` chain. Such a failure says nothing about
 * the message being handled: it is retried until the dependency is back, never parked.
 */
export function isInfrastructureError(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isMongoUnavailable(e)) return true;
    if (e instanceof HttpProblem && e.status === 503) return true;
    if (NATS_UNAVAILABLE.has((e as { name?: string }).name ?? '')) return true;
  }
  return false;
}
