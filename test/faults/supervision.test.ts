import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { deleteNamespace, freePortBase, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';

const ROOT = path.resolve(__dirname, '../..');
/** Offsets from STACK_BASE_PORT that `npm start` listens on: services, bridge, embedded MongoDB, gateway, simulator. */
const OFFSETS = [1, 2, 3, 4, 5, 16, 17, 50, 51];

let start: ChildProcess | undefined;
const lines: string[] = [];
const namespace = testNamespace();
const dataDir = mkdtempSync(path.join(tmpdir(), 'guildhall-start-'));
let base = 0;

/** The first printed line (colours removed) matching `pattern`, once there is one. */
const printed = (pattern: RegExp, timeoutMs: number) =>
  waitFor(
    () => lines.find((line) => pattern.test(line)),
    (line) => line !== undefined,
    timeoutMs,
  ) as Promise<string>;

beforeAll(async () => {
  base = await freePortBase(OFFSETS);
  // `npm start` without a bot token: the simulator, the embedded MongoDB under DATA_DIR, every process supervised.
  start = spawn(process.execPath, [path.join(ROOT, 'scripts/start.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(base + 50),
      STACK_BASE_PORT: String(base),
      DATA_DIR: dataDir,
      NATS_URL: testNatsUrl(),
      NATS_NAMESPACE: namespace,
      QUIET: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let rest = '';
  const collect = (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) lines.push(stripVTControlCharacters(line));
  };
  start.stdout?.on('data', collect);
  start.stderr?.on('data', collect);
  await printed(/Guildhall is running/, 150_000).catch((err) => {
    process.stderr.write(`${lines.slice(-60).join('\n')}\n`);
    throw err;
  });
}, 160_000);

afterAll(async () => {
  if (start && start.exitCode === null) {
    const exited = new Promise((resolve) => start?.once('exit', resolve));
    start.kill('SIGINT');
    await exited;
  }
  await deleteNamespace(namespace);
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('npm start supervision', () => {
  it('restarts a service and the embedded MongoDB killed with SIGKILL and prints when they are ready again', async () => {
    const started = await printed(/supervisor\s+logs started \(pid (\d+)\)/, 1_000);
    const pid = Number(/pid (\d+)/.exec(started)?.[1]);
    process.kill(pid, 'SIGKILL');
    const killedAt = Date.now();

    const exit = await printed(new RegExp(`logs \\(pid ${pid}\\) exited \\(signal SIGKILL\\)`), 10_000);
    expect(exit).toMatch(/restarting in 100 ms \(restart 1 in a row\)/);
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${base + 3}/readyz`).then(
          (r) => r.status,
          () => 0,
        ),
      (status) => status === 200,
      60_000,
    );
    const back = await printed(/logs \(pid (\d+)\) is back and ready ([\d.]+) s after the exit/, 10_000);
    const [, newPid, seconds] = /pid (\d+)\) is back and ready ([\d.]+) s/.exec(back) ?? [];
    expect(Number(newPid)).not.toBe(pid);
    expect(() => process.kill(Number(newPid), 0)).not.toThrow();
    process.stdout.write(
      `logs back and ready ${seconds} s after SIGKILL (printed), ${((Date.now() - killedAt) / 1000).toFixed(1)} s seen by the test\n`,
    );

    // The embedded MongoDB too: restarted on its data dir, and the services are ready again on it.
    const mongo = Number(/pid (\d+)/.exec(await printed(/supervisor\s+mongo started \(pid (\d+)\)/, 1_000))?.[1]);
    process.kill(mongo, 'SIGKILL');
    await printed(new RegExp(`mongo \\(pid ${mongo}\\) exited \\(signal SIGKILL\\)`), 10_000);
    await printed(/mongo \(pid \d+\) is back and ready/, 60_000);
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${base + 1}/readyz`).then(
          (r) => r.status,
          () => 0,
        ),
      (status) => status === 200,
      60_000,
    );
  }, 150_000);
});
