// A Redis Cluster of the test's own: six redis-server processes on free ports (three masters,
// three replicas) made into a cluster with `redis-cli --cluster create`, each in its own dir
// under a temp dir. A test can SIGKILL the master of a slot and wait for its replica to take
// over. Nothing here touches the shared Redis on 6379.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { CI } from './services.ts';
import { waitFor } from './wait-for.ts';

const runs = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

/**
 * Whether redis-server and redis-cli are here to make a cluster. Under CI=true their absence
 * throws (a failure, not a skip); elsewhere the caller skips with the reason.
 */
export function clusterToolsAvailable(): boolean {
  const missing = ['redis-server', 'redis-cli'].filter((cmd) => !runs(cmd, ['--version']));
  if (missing.length && CI) throw new Error(`CI=true and ${missing.join(' and ')} not found: install redis-server`);
  return missing.length === 0;
}

/** Whether 127.0.0.1:port can be bound now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port for a cluster node whose cluster bus port (port + 10000) is free too: not the kernel's
 * pick, which may be above 55535, where the bus port would not exist.
 */
async function freeClusterPort(taken: ClusterNode[]): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const clash = taken.some((n) => Math.abs(n.port - port) === 10_000 || n.port === port);
    if (!clash && (await bindable(port)) && (await bindable(port + 10_000))) return port;
  }
  throw new Error('no free port pair (port, port + 10000) for a Redis Cluster node between 20000 and 42000');
}

/** One node: its port and process (undefined once killed). */
interface ClusterNode {
  port: number;
  child: ChildProcess | undefined;
}

export class LocalRedisCluster {
  private constructor(
    private readonly dir: string,
    private readonly nodes: ClusterNode[],
  ) {}

  /**
   * Starts six nodes and joins them; resolves once every node reports cluster_state:ok.
   * cluster-node-timeout 1 s, so a killed master's replica is promoted within seconds.
   */
  static async start(): Promise<LocalRedisCluster> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ax-redis-cluster-'));
    const nodes: ClusterNode[] = [];
    const cluster = new LocalRedisCluster(dir, nodes);
    try {
      for (let i = 0; i < 6; i++) nodes.push({ port: await freeClusterPort(nodes), child: undefined });
      for (const node of nodes) cluster.spawnNode(node);
      await Promise.all(nodes.map((node) => cluster.waitAnswers(node.port)));
      const create = spawnSync(
        'redis-cli',
        ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'],
        { encoding: 'utf8', timeout: 60_000 },
      );
      if (create.status !== 0)
        throw new Error(`redis-cli --cluster create failed:\n${create.stdout}\n${create.stderr}`);
      await cluster.waitHealthy();
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /** A URL of one node: the client finds the others from it. */
  get url(): string {
    return `redis://127.0.0.1:${this.livePorts[0] ?? this.nodes[0]?.port}`;
  }

  /** Ports of the nodes still running. */
  get livePorts(): number[] {
    return this.nodes.filter((n) => n.child).map((n) => n.port);
  }

  /** The port of the master serving key's slot, as a live node sees it. */
  async masterOf(key: string): Promise<number> {
    return this.withNode(async (r) => {
      const slot = await r.cluster('KEYSLOT', key);
      const range = (await r.cluster('SLOTS')).find(([from, to]) => slot >= from && slot <= to);
      const master = range?.[2];
      if (!master) throw new Error(`no master serves slot ${slot}`);
      return master[1];
    });
  }

  /** Ports of the live replicas (killing one leaves every slot served by its master). */
  async replicaPorts(): Promise<number[]> {
    const nodes = await this.withNode(async (r) => String(await r.cluster('NODES')));
    return nodes
      .split('\n')
      .map((line) => line.split(' '))
      .filter((f) => /(^|,)slave(,|$)/.test(f[2] ?? '') && !/fail/.test(f[2] ?? ''))
      .map((f) => Number(/:(\d+)@/.exec(f[1] ?? '')?.[1]))
      .filter((port) => this.livePorts.includes(port));
  }

  /** True once a replica of the master on port acknowledged every write it had (WAIT). */
  async replicated(port: number): Promise<boolean> {
    const r = plainClient(port);
    try {
      await r.connect();
      return (await r.wait(1, 1_000)) >= 1;
    } finally {
      r.disconnect();
    }
  }

  /** SIGKILLs the node on port (a master dies without a word). */
  async kill(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    const child = node?.child;
    if (!node || !child) throw new Error(`no running node on port ${port}`);
    node.child = undefined;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  /** Resolves once a live node other than deadPort masters key's slot and the cluster is ok again. */
  async waitPromoted(key: string, deadPort: number): Promise<number> {
    let master = deadPort;
    await waitFor(
      async () => {
        master = await this.masterOf(key).catch(() => deadPort);
        return master !== deadPort && (await this.allOk());
      },
      { timeoutMs: 30_000, intervalMs: 200, message: `a replica to take over from the master on port ${deadPort}` },
    );
    return master;
  }

  /** Kills every node and removes their dirs. */
  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (node) => {
        const child = node.child;
        node.child = undefined;
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      }),
    );
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private spawnNode(node: ClusterNode): void {
    const dir = path.join(this.dir, String(node.port));
    fs.mkdirSync(dir, { recursive: true });
    // No persistence: a killed node stays dead in these tests, and the replica has the data.
    const args = [
      ['--port', String(node.port)],
      ['--bind', '127.0.0.1'],
      ['--dir', dir],
      ['--cluster-enabled', 'yes'],
      ['--cluster-config-file', 'nodes.conf'],
      ['--cluster-node-timeout', '1000'],
      ['--save', ''],
      ['--appendonly', 'no'],
      ['--daemonize', 'no'],
    ].flat();
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    child.on('error', () => undefined); // reported by waitAnswers (not installed, port taken)
    node.child = child;
  }

  private async waitAnswers(port: number): Promise<void> {
    await waitFor(() => ping(port), {
      timeoutMs: 20_000,
      intervalMs: 50,
      message: `redis-server on ${port} to answer`,
    });
  }

  private async waitHealthy(): Promise<void> {
    await waitFor(() => this.allOk(), {
      timeoutMs: 60_000,
      intervalMs: 200,
      message: 'cluster_state:ok on every node',
    });
  }

  private async allOk(): Promise<boolean> {
    const states = await Promise.all(this.livePorts.map((port) => clusterInfo(port).catch(() => '')));
    return states.every((info) => /^cluster_state:ok\s*$/m.test(info));
  }

  private async withNode<T>(use: (r: Redis) => Promise<T>): Promise<T> {
    let last: unknown;
    for (const port of this.livePorts) {
      const r = plainClient(port);
      try {
        return await use(r);
      } catch (error) {
        last = error;
      } finally {
        r.disconnect();
      }
    }
    throw new Error(`no cluster node answered: ${String(last)}`);
  }
}

const plainClient = (port: number): Redis => {
  const r = new Redis({
    port,
    host: '127.0.0.1',
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    lazyConnect: true,
  });
  r.on('error', () => undefined);
  return r;
};

async function ping(port: number): Promise<boolean> {
  const r = plainClient(port);
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

async function clusterInfo(port: number): Promise<string> {
  const r = plainClient(port);
  try {
    await r.connect();
    return await r.cluster('INFO');
  } finally {
    r.disconnect();
  }
}
