import type { Server } from 'node:http';
import { type EmbeddedMongo, startEmbeddedMongo } from '@guildhall/embedded-mongo';
import {
  connectMongo,
  createApp,
  createLogger,
  createMetricsRegistry,
  disconnectMongo,
  toProblem,
} from '@guildhall/shared';
import { testDbName } from '@guildhall/testkit';
import mongoose, { Schema } from 'mongoose';

const Gadget = mongoose.model('Gadget', new Schema({ name: String }, { collection: 'gadgets' }));
const logger = createLogger('test', 'silent');

describe('a request while MongoDB is down', () => {
  let mongo: EmbeddedMongo;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    mongo = await startEmbeddedMongo({});
    await connectMongo(mongo.uri(), testDbName('shared'), logger, 1500);
    const app = createApp({
      name: 'test',
      logger,
      metrics: createMetricsRegistry('test'),
      metricsToken: '',
      trustProxy: false,
      isReady: () => true,
      mount: (a) =>
        a.get('/gadgets', async (_req, res, next) => {
          try {
            res.json(await Gadget.find().lean());
          } catch (err) {
            next(err);
          }
        }),
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server?.close();
    await disconnectMongo();
  });

  it('answers 503 problem+json with Retry-After within 2 s (not 500 after 10 s)', async () => {
    await Gadget.create({ name: 'a' });
    expect((await fetch(`${base}/gadgets`)).status).toBe(200);
    await mongo.close();
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const res = await fetch(`${base}/gadgets`);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('which driver errors mean the database is unavailable (503) and which are bugs (500)', () => {
  const { MongoServerError, MongoServerClosedError, MongoErrorLabel } = mongoose.mongo;

  it('maps a server shutting down or stepping down (labelled retryable by the driver) and a closed server to 503', () => {
    const shutdown = new MongoServerError({ ok: 0, code: 91, codeName: 'ShutdownInProgress', errmsg: 'shutdown' });
    shutdown.addErrorLabel(MongoErrorLabel.RetryableWriteError);
    const steppedDown = new MongoServerError({ ok: 0, code: 189, codeName: 'PrimarySteppedDown', errmsg: 'stepped' });
    steppedDown.addErrorLabel(MongoErrorLabel.ResetPool);
    for (const err of [shutdown, steppedDown, new MongoServerClosedError()]) {
      const problem = toProblem(err);
      expect(problem.status).toBe(503);
      expect(problem.extras.retryAfter).toBeGreaterThanOrEqual(1);
    }
  });

  it('keeps 500 for a server error that retrying cannot fix', () => {
    expect(toProblem(new MongoServerError({ ok: 0, code: 2, codeName: 'BadValue', errmsg: 'bad' })).status).toBe(500);
  });
});
