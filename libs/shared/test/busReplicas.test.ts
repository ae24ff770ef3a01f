import { ConfigError, createLogger, EventBus, loadConfig } from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl } from '@guildhall/testkit';

const logger = createLogger('bus-replicas-test', 'silent');
const env = { PORT: '0', MONGO_URL: 'mongodb://127.0.0.1:27017', MONGO_DB: 'x', IDENTITY_SECRET: 'x'.repeat(32) };

describe('NATS_REPLICAS', () => {
  it('defaults to 1 and accepts 1, 3 or 5 only', () => {
    expect(loadConfig({}, env).NATS_REPLICAS).toBe(1);
    expect(loadConfig({}, { ...env, NATS_REPLICAS: '3' }).NATS_REPLICAS).toBe(3);
    for (const bad of ['2', '4', '0', 'three']) {
      expect(() => loadConfig({}, { ...env, NATS_REPLICAS: bad })).toThrow(/NATS_REPLICAS: /);
    }
  });

  it('refuses more than one replica on a NATS server outside a cluster, before creating anything', async () => {
    const namespace = testNamespace();
    const err = await EventBus.connect({
      url: testNatsUrl(),
      name: 'replicas-test',
      namespace,
      logger,
      replicas: 3,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems[0]).toMatch(/^NATS_REPLICAS: 3 replicas need a JetStream cluster/);
    const other = testNamespace();
    const bus = await EventBus.connect({ url: testNatsUrl(), name: 'replicas-test', namespace: other, logger });
    try {
      await expect(bus.jsm.streams.info(`${namespace}_EVENTS`)).rejects.toThrow(/stream not found/);
      await expect(bus.jsm.streams.info(bus.streamName('EVENTS'))).resolves.toMatchObject({
        config: { num_replicas: 1 },
      });
    } finally {
      await bus.close();
      await deleteNamespace(other);
    }
  });
});
