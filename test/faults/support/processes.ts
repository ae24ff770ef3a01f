import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

/** A TCP port nothing listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves when `child` has exited (at once when it already has). */
export async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await once(child, 'exit');
}

/** Sends `signal` to `child` and resolves when it has exited. */
export async function killAndWait(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const done = exited(child);
  child.kill(signal);
  await done;
}

/**
 * A `nats-server` (from PATH) with JetStream on 127.0.0.1:`port`, storing under `storeDir`; resolves once it
 * accepts clients (its log says "Server is ready"), rejects when it exits first or after 15 s.
 */
export async function startNatsServer(port: number, storeDir: string): Promise<ChildProcess> {
  const child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nats-server not ready after 15 s:\n${log}`)), 15_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Server is ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited (${code ?? signal}) before it was ready:\n${log}`));
    });
  });
  child.stderr!.resume();
  return child;
}
