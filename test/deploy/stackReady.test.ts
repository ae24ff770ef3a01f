import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import path from 'node:path';

/**
 * The stack's readiness wait (scripts/stack.js `waitForReady`): a process that exited is not waited for (the error
 * names its exit code at once instead of after the whole deadline), and one that answers is ready.
 */
// biome-ignore lint/suspicious/noExplicitAny: scripts/stack.js is plain JavaScript
const { waitForReady } = require(path.resolve(__dirname, '../../scripts/stack.js')) as { waitForReady: any };

let server: Server;
let url: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = createServer((req, res) => res.writeHead(req.url === '/readyz' ? 200 : 404).end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  server.close();
});

function node(code: string): ChildProcess {
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  children.push(child);
  return child;
}

it('gives up on a process as soon as it exits, naming its exit code', async () => {
  const child = node('process.exit(3)');
  await once(child, 'exit');
  await expect(waitForReady(`${url}/not-ready`, 600_000, 'probe', child)).rejects.toThrow(
    `probe exited (3) before it answered ${url}/not-ready`,
  );
});

it('resolves once the running process answers its readiness URL', async () => {
  const child = node('setInterval(() => {}, 1000)');
  await expect(waitForReady(`${url}/readyz`, 600_000, 'probe', child)).resolves.toBeUndefined();
});
