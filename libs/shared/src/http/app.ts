import { randomUUID, timingSafeEqual } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { Logger } from '../logger';
import { runWithRequestId } from '../requestContext';
import { isMongoUnavailable } from '../unavailable';
import { DEPENDENCY_RETRY_AFTER_S, HttpProblem, notFound, sendProblem, unauthorized } from './problem';

export const REQUEST_ID_HEADER = 'x-request-id';

/** Options of `createApp`. */
export interface AppOptions {
  name: string;
  logger: Logger;
  /** `/readyz` answers 200 only while this returns true (dependencies connected). */
  isReady: () => boolean | Promise<boolean>;
  /** Prometheus registry served at `/metrics` (default metrics + HTTP histogram are registered on it). */
  metrics: Registry;
  /**
   * Bearer token `/metrics` requires (`Authorization: Bearer <token>`, else 401). Empty: `/metrics` is not served
   * (404), so metrics are never public by accident.
   */
  metricsToken: string;
  /**
   * Express `trust proxy` setting: which hops may set `X-Forwarded-For` (false = none, a hop count, or a
   * comma-separated list of addresses/subnets/`loopback`/`uniquelocal`). See `parseTrustProxy`.
   */
  trustProxy: boolean | number | string;
  /** Mounts the service's routes (between the probes and the 404/error handlers). */
  mount: (app: Express) => void;
}

/** A fresh Prometheus registry with the process's default metrics, labelled with the service name. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * The express app every service (and the gateway) runs: request id (from `x-request-id` or new; echoed back and
 * kept in the async context for logs and NATS headers), pino-http (when the logger's level includes `info`), helmet, HTTP metrics, `GET /healthz`
 * (process up), `GET /readyz` (dependencies ready, else 503), `GET /metrics` (Prometheus), the service's routes,
 * a problem+json 404 for anything else, and the problem+json error handler.
 */
export function createApp(opts: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', opts.trustProxy);
  app.use(requestId());
  // pino-http writes its request lines at `info` (errors too), so above that level it would write nothing while still
  // building two child loggers per request (one serializing the request): it is mounted only when `info` is on.
  if (opts.logger.isLevelEnabled('info')) {
    app.use(
      pinoHttp({
        logger: opts.logger,
        genReqId: (req) => req.headers[REQUEST_ID_HEADER] as string,
        quietReqLogger: true,
        autoLogging: { ignore: (req) => isProbe(req.url) },
      }),
    );
  }
  app.use(helmet());
  app.use(httpMetrics(opts.metrics));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', service: opts.name });
  });
  app.get('/readyz', async (_req, res) => {
    const ready = await Promise.resolve(opts.isReady()).catch(() => false);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', service: opts.name });
  });
  app.get('/metrics', async (req, res, next) => {
    if (!opts.metricsToken) return next();
    if (!bearerMatches(req.headers.authorization, opts.metricsToken))
      return next(unauthorized('/metrics needs Authorization: Bearer <METRICS_TOKEN>'));
    res.type(opts.metrics.contentType).send(await opts.metrics.metrics());
  });
  opts.mount(app);
  app.use((req, _res, next) => next(notFound(`No route ${req.method} ${req.path}`)));
  app.use(problemHandler(opts.logger));
  return app;
}

/** Constant-time comparison of an `Authorization` header with `Bearer <token>`. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function isProbe(url = ''): boolean {
  return url === '/healthz' || url === '/readyz' || url === '/metrics';
}

function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.headers[REQUEST_ID_HEADER];
    const id = typeof given === 'string' && /^[\w.:-]{1,100}$/.test(given) ? given : randomUUID();
    req.headers[REQUEST_ID_HEADER] = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    runWithRequestId(id, next);
  };
}

function httpMetrics(registry: Registry): RequestHandler {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds, by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'http_server_errors_total',
    help: 'Answers with a 5xx status',
    labelNames: ['route'],
    registers: [registry],
  });
  return (req, res, next) => {
    const end = duration.startTimer();
    res.on('finish', () => {
      const route = (req.route?.path as string | undefined) ?? (isProbe(req.path) ? req.path : 'unmatched');
      end({ method: req.method, route, status: String(res.statusCode) });
      if (res.statusCode >= 500) errors.inc({ route });
    });
    next();
  };
}

/** 503 + `Retry-After` for a request that needed MongoDB while no server answered. */
function databaseUnavailable(): HttpProblem {
  return new HttpProblem(503, 'The database is unavailable; retry shortly', { retryAfter: DEPENDENCY_RETRY_AFTER_S });
}

/** Maps any error to an RFC 9457 answer; 5xx are logged with the error, 4xx are not. */
export function problemHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const problem = toProblem(err);
    if (problem.status >= 500) logger.error({ err, method: req.method, url: req.originalUrl }, 'request failed');
    if (res.headersSent) {
      res.end();
      return;
    }
    sendProblem(res, problem);
  };
}

/**
 * The problem an error stands for: body-parser (malformed JSON, invalid UTF-8, too large), zod-validated
 * HttpProblem, MongoDB unavailable (503 + Retry-After), mongoose and duplicate-key errors.
 */
export function toProblem(err: unknown): HttpProblem {
  if (err instanceof HttpProblem) return err;
  const e = err as {
    type?: string;
    status?: number;
    code?: number;
    name?: string;
    message?: string;
    keyValue?: object;
  };
  if (e?.type === 'entity.too.large') return new HttpProblem(413, 'The request body is too large');
  if (e?.type === 'entity.parse.failed')
    return new HttpProblem(400, 'body: malformed JSON', { errors: [{ field: 'body', message: 'malformed JSON' }] });
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported')
    return new HttpProblem(415, e.message ?? 'Unsupported encoding');
  if (e?.type === 'encoding.invalid')
    return new HttpProblem(400, 'body: not valid UTF-8', { errors: [{ field: 'body', message: 'not valid UTF-8' }] });
  if (isMongoUnavailable(e)) return databaseUnavailable();
  if (e?.code === 11000) return new HttpProblem(409, 'A resource with the same key already exists');
  if (e?.name === 'CastError' || e?.name === 'ValidationError')
    return new HttpProblem(400, e.message ?? 'Invalid value');
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500)
    return new HttpProblem(e.status, e.message ?? 'Bad request');
  return new HttpProblem(500, 'Internal error');
}
