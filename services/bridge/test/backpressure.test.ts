import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Bridge, startBridge } from '@guildhall/bridge';
import { createLogger, EventBus } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { Registry } from 'prom-client';
import { type Dispatch, FakeGateway } from './fakeGateway';

const logger = createLogger('bridge-backpressure-test', 'silent');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** A private `nats-server` with JetStream (its own port and store directory) that the test stops and starts. */
class LocalNats {
  private child: ChildProcess | null = null;
  readonly dir = mkdtempSync(path.join(tmpdir(), 'bridge-nats-'));
  url = '';
  private port = 0;

  async start(): Promise<void> {
    this.port ||= await freePort();
    this.url = `nats://127.0.0.1:${this.port}`;
    const child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.dir]);
    this.child = child;
    let output = '';
    child.stderr?.on('data', (chunk) => {
      output += String(chunk);
    });
    await waitFor(() => output.includes('Server is ready') || child.exitCode !== null);
    if (child.exitCode !== null) throw new Error(`nats-server exited: ${output}`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
    this.child = null;
  }

  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('platform bridge while NATS is down', () => {
  const nats = new LocalNats();
  const gateway = new FakeGateway();
  let bus: EventBus;
  let bridge: Bridge | undefined;

  beforeAll(async () => {
    await nats.start();
  });
  afterAll(async () => {
    await bridge?.stop();
    await bus?.close();
    await gateway.close();
    await nats.remove();
  });

  it('buffers at most BRIDGE_BUFFER_MAX dispatches, pauses the shard, and loses nothing once NATS is back', async () => {
    const restUrl = await gateway.listen();
    const metrics = new Registry();
    bridge = await startBridge({ token: 't', natsUrl: nats.url, logger, restUrl, bufferMax: 5, metrics });
    bus = await EventBus.connect({ url: nats.url, name: 'backpressure-reader', logger });
    const session = gateway.session(0).id;
    await waitFor(() => bridge?.published() === 1);

    await nats.stop();
    const guilds = ['1300000000000000001', '1300000000000000017', '1300000000000000042'];
    for (let i = 0; i < 30; i++) {
      gateway.emit(0, 'MESSAGE_CREATE', {
        id: String(1300000000000001000n + BigInt(i)),
        channel_id: '1300000000000000002',
        guild_id: guilds[i % 3],
        content: `message ${i}`,
      });
    }
    // The socket leaves OPEN when the close starts, its close code is known once it ended: wait for the code.
    await waitFor(() => gateway.closeCodes.length > 0);
    expect(gateway.closeCodes).toContain(4200);
    expect(gateway.connected(0)).toBe(false);
    expect(bridge.backlog()).toBe(5);
    expect(await bridge.ready()).toBe(false);
    expect(await metrics.getSingleMetricAsString('bridge_backpressure_pauses_total')).toMatch(/ 1$/m);

    await nats.start();
    await waitFor(() => gateway.resumes.length > 0, Boolean, 30_000);
    expect(gateway.resumes[0]).toMatchObject({ session_id: session, seq: 6 });
    // Each pause/RESUME cycle (the replay refills the small buffer) adds a RESUMED, which a RESUME never replays.
    const events = () => gateway.session(0).log.filter((p) => p.t !== 'RESUMED');
    const last = events().at(-1) as Dispatch;
    const stored = await waitFor(
      async () => {
        const all: Dispatch[] = [];
        const info = await bus.jsm.streams.info(bus.streamName('PLATFORM'));
        for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
          const m = await bus.jsm.streams.getMessage(bus.streamName('PLATFORM'), { seq });
          if (m) all.push(m.json());
        }
        return all.filter((p) => p.t !== 'RESUMED');
      },
      (all) => all.some((p) => p.s === last.s),
      30_000,
    );
    expect(stored).toEqual(events());
    expect(gateway.identifies).toHaveLength(1);
    await waitFor(() => bridge?.ready());
  }, 90_000);
});
