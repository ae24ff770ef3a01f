import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { SESSION_BUCKET } from '@guildhall/bridge';
import { createLogger, EventBus } from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import { Kvm } from '@nats-io/kv';
import { type Dispatch, FakeGateway } from './fakeGateway';

const MAIN = path.join(__dirname, '..', 'dist', 'main.js');
const logger = createLogger('bridge-process-test', 'silent');

/** Dispatches in the namespace's PLATFORM stream, in stream order. */
async function stored(bus: EventBus): Promise<Dispatch[]> {
  const name = bus.streamName('PLATFORM');
  const info = await bus.jsm.streams.info(name);
  const out: Dispatch[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await bus.jsm.streams.getMessage(name, { seq });
    if (m) out.push(m.json());
  }
  return out;
}

describe('the bridge process (dist/main.js), killed and started again', () => {
  const ns = testNamespace();
  const gateway = new FakeGateway();
  let bus: EventBus;
  let child: ChildProcess | null = null;
  let env: Record<string, string>;

  const start = () => {
    child = spawn(process.execPath, [MAIN], { env: { ...process.env, ...env }, stdio: 'ignore' });
  };
  const kill = () =>
    new Promise<void>((resolve) => {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });

  beforeAll(async () => {
    const restUrl = await gateway.listen();
    env = {
      PORT: '0',
      LOG_LEVEL: 'silent',
      NATS_URL: testNatsUrl(),
      NATS_NAMESPACE: ns,
      PLATFORM_API_URL: restUrl,
      PLATFORM_BOT_TOKEN: 'process-test-token',
    };
    bus = await EventBus.connect({ url: testNatsUrl(), name: 'bridge-process-reader', namespace: ns, logger });
  });
  afterAll(async () => {
    await kill();
    await bus.close();
    await gateway.close();
    await deleteNamespace(ns);
  });

  it('RESUMEs the persisted session after SIGKILL; every dispatch is stored once', async () => {
    start();
    await waitFor(() => gateway.identifies.length === 1, Boolean, 20_000);
    const session = gateway.session(0).id;
    for (let i = 0; i < 5; i++)
      gateway.emit(0, 'GUILD_BAN_ADD', {
        guild_id: '1300000000000000001',
        user: { id: String(1300000000000000100n + BigInt(i)) },
      });
    await waitFor(
      () => stored(bus),
      (all) => all.length === 6,
    );
    const kv = await new Kvm(bus.nc).open(bus.resourceName(SESSION_BUCKET));
    await waitFor(async () => (await kv.get('shard-0'))?.json<{ sequence: number }>().sequence === 6);
    await kill();
    const missed = gateway.emit(0, 'GUILD_BAN_REMOVE', {
      guild_id: '1300000000000000001',
      user: { id: '1300000000000000100' },
    });

    start();
    await waitFor(() => gateway.resumes.length === 1, Boolean, 20_000);
    expect(gateway.identifies).toHaveLength(1);
    expect(gateway.resumes[0]).toMatchObject({ session_id: session });
    expect(gateway.resumes[0].seq).toBe(6);
    const all = await waitFor(
      () => stored(bus),
      (s) => s.some((p) => p.s === missed.s),
      20_000,
    );
    expect(all.filter((p) => p.t !== 'RESUMED')).toEqual(gateway.session(0).log.filter((p) => p.t !== 'RESUMED'));
  }, 60_000);
});
