import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { freePortBase } from './ports';
import { waitFor } from './wait';

/** The `nats-server` binary the cluster runs (`NATS_SERVER_BIN`, default Debian's `/usr/sbin/nats-server`). */
export function natsServerBinary(): string {
  return process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
}

/** One server of a `NatsCluster`: its name (`n0`, `n1`, ...), client and route ports, store directory and process. */
interface ClusterNode {
  name: string;
  clientPort: number;
  routePort: number;
  storeDir: string;
  child: ChildProcess | null;
  output: string;
}

/**
 * A JetStream cluster of `size` `nats-server` processes on loopback for tests: each with its own client and route
 * ports (a free block from `freePortBase`) and store directory under one temporary directory, routed to every other.
 * `kill` ends one with SIGKILL, `restart` starts it again on the same ports and store (it catches up from the others).
 */
export class NatsCluster {
  private readonly nodes: ClusterNode[] = [];
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'nats-cluster-'));

  private constructor(readonly clusterName: string) {}

  /**
   * Starts `size` servers (default 3) and resolves once each printed `Server is ready` and JetStream answers through
   * the cluster (a metadata leader is elected), at most 20 s. Throws with the servers' output when one exits.
   */
  static async start(size = 3): Promise<NatsCluster> {
    const cluster = new NatsCluster(`test_${process.pid}_${Date.now()}`);
    const offsets = Array.from({ length: size * 2 }, (_, i) => i);
    const base = await freePortBase(offsets);
    for (let i = 0; i < size; i++) {
      const storeDir = path.join(cluster.dir, `n${i}`);
      mkdirSync(storeDir);
      cluster.nodes.push({
        name: `n${i}`,
        clientPort: base + i,
        routePort: base + size + i,
        storeDir,
        child: null,
        output: '',
      });
    }
    try {
      for (const node of cluster.nodes) cluster.spawn(node);
      await Promise.all(cluster.nodes.map((node) => cluster.ready(node)));
      await cluster.jetStreamReady();
    } catch (err) {
      await cluster.remove();
      throw err;
    }
    return cluster;
  }

  /** Every server's client URL, comma-separated (the form `NATS_URL` and `EventBus.connect` take). */
  get url(): string {
    return this.nodes.map((node) => `nats://127.0.0.1:${node.clientPort}`).join(',');
  }

  /** The servers' names (`n0`, `n1`, ...), which JetStream reports as a stream's `cluster.leader`. */
  get names(): string[] {
    return this.nodes.map((node) => node.name);
  }

  /** Ends server `name` with SIGKILL (no shutdown, no leadership hand-over) and resolves once it exited. */
  async kill(name: string): Promise<void> {
    const node = this.node(name);
    const child = node.child;
    node.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  /** Starts server `name` again on its ports and store directory; resolves once it printed `Server is ready`. */
  async restart(name: string): Promise<void> {
    const node = this.node(name);
    if (node.child) throw new Error(`nats-server ${name} is still running`);
    this.spawn(node);
    await this.ready(node);
  }

  /**
   * Starts again every server that was killed (a test that failed before restarting what it killed leaves the next one
   * a whole cluster) and resolves once JetStream answers through the cluster.
   */
  async reviveAll(): Promise<void> {
    for (const node of this.nodes) if (!node.child) await this.restart(node.name);
    await this.jetStreamReady();
  }

  /** Ends every server (SIGKILL: nothing of the store is kept) and removes the store directories. */
  async remove(): Promise<void> {
    await Promise.all(this.nodes.map((node) => this.kill(node.name)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private node(name: string): ClusterNode {
    const node = this.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no nats-server ${name} in this cluster (${this.names.join(', ')})`);
    return node;
  }

  private spawn(node: ClusterNode): void {
    const routes = this.nodes.map((n) => `nats://127.0.0.1:${n.routePort}`).join(',');
    const args = [
      ...['-a', '127.0.0.1', '-p', String(node.clientPort), '-n', node.name],
      ...['-js', '-sd', node.storeDir],
      ...['--cluster_name', this.clusterName, '--cluster', `nats://127.0.0.1:${node.routePort}`, '--routes', routes],
    ];
    const child = spawn(natsServerBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
    node.output = '';
    child.stderr?.on('data', (chunk) => {
      node.output = (node.output + String(chunk)).slice(-20_000);
    });
    node.child = child;
  }

  private async ready(node: ClusterNode): Promise<void> {
    const child = node.child;
    await waitFor(() => node.output.includes('Server is ready') || child?.exitCode !== null, Boolean, 20_000);
    if (child?.exitCode !== null) throw new Error(`nats-server ${node.name} exited: ${node.output}`);
  }

  /** Resolves once JetStream answers an account info request through the cluster (its metadata leader is elected). */
  private async jetStreamReady(): Promise<void> {
    const nc = await connect({ servers: this.url.split(','), noAsyncTraces: true });
    try {
      await waitFor(
        async () => (await jetstreamManager(nc, { timeout: 1_000 })).getAccountInfo(),
        Boolean,
        20_000,
        100,
      );
    } finally {
      await nc.close();
    }
  }
}
