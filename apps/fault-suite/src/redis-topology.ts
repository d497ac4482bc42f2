/**
 * Highly available Redis topologies of a test's own — a Cluster with replicas, a Sentinel-managed
 * primary and replica — on ports the test names, in a temp dir, each process killed by `stop()`.
 * Never the shared servers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { spawnRedisServer } from '@pgw/testkit';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRedisConnection } from '@pgw/backend-redis';
import { until } from './until.js';

export interface RedisProcess {
  readonly port: number;
  readonly child: ChildProcess;
  /** SIGKILL, then wait for the exit. Safe to call twice. */
  kill(): Promise<void>;
  /** SIGSTOP: the process keeps its connections but answers nothing (until it is killed). */
  freeze(): void;
}

async function startProcess(port: number, args: readonly string[], ready?: string): Promise<RedisProcess> {
  const { child, stop } = await spawnRedisServer(args, ready);
  return { port, child, kill: stop, freeze: () => child.kill('SIGSTOP') };
}

/** Processes started into one temp dir; `stop()` kills them all and removes the dir. */
function processGroup(dir: string) {
  const processes: RedisProcess[] = [];
  return {
    processes,
    async stop(): Promise<void> {
      for (const one of processes) await one.kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// A replica syncs at once (no diskless-sync delay), and may always be promoted whatever its data age.
const dataNodeArgs = (port: number, dir: string): string[] => [
  '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--dbfilename', `dump-${port}.rdb`,
  '--repl-diskless-sync-delay', '0',
];

/** Runs `command` with admin connections to `port`, closed afterwards. */
async function onNode<T>(port: number, command: (redis: ReturnType<typeof createRedisConnection>) => Promise<T>): Promise<T> {
  const redis = createRedisConnection(`redis://127.0.0.1:${port}`, { connectTimeoutMs: 500, commandTimeoutMs: 1_000 });
  try {
    // No offline queue: a command waits for the connection here, or fails with it.
    await new Promise((resolve, reject) => {
      redis.once('ready', resolve);
      redis.once('close', () => reject(new Error(`redis on ${port} is not reachable`)));
    });
    return await command(redis);
  } finally {
    redis.disconnect();
  }
}

/** Answers `undefined` instead of failing while a node is down or not yet up. */
const softly = <T>(run: () => Promise<T>): Promise<T | undefined> => run().catch(() => undefined);

export interface PrivateCluster {
  readonly seeds: string;
  readonly nodes: RedisProcess[];
  /** The port of the master that owns `key`'s slot, and of the replica that follows it. */
  ownerOf(key: string): Promise<{ master: number; replica: number }>;
  /** Resolves once a node other than `dead` is a master of `key`'s slot; returns its port. */
  promoted(key: string, dead: number): Promise<number>;
  stop(): Promise<void>;
}

/** 3 masters + 3 replicas (`cluster-node-timeout 1000`) on `ports` (six of them). */
export async function startCluster(ports: readonly number[]): Promise<PrivateCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgw-cluster-'));
  const { processes: nodes, stop } = processGroup(dir);
  try {
    for (const port of ports) {
      const args = [...dataNodeArgs(port, dir), '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '1000', '--cluster-replica-validity-factor', '0'];
      nodes.push(await startProcess(port, args));
    }
    const create = spawn('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], { stdio: 'ignore' });
    const [code] = (await once(create, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`redis-cli --cluster create exited with ${code}`);
    await until('every cluster node sees the cluster ok', async () => {
      const states = await Promise.all(ports.map((p) => softly(() => onNode(p, (r) => r.cluster('INFO') as Promise<string>))));
      return states.every((info) => info?.includes('cluster_state:ok'));
    });
    await until('every replica in sync', async () => {
      const states = await Promise.all(ports.map((p) => softly(() => onNode(p, (r) => r.info('replication')))));
      return states.filter((info) => info?.includes('master_link_status:up')).length === ports.length / 2;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const liveNode = (dead?: number) => ports.find((p) => p !== dead)!;
  const table = async (asked: number) => parseNodes(await onNode(asked, (r) => r.cluster('NODES') as Promise<string>));
  return {
    seeds: ports.map((p) => `redis://127.0.0.1:${p}`).join(','),
    nodes,
    async ownerOf(key) {
      const slot = await onNode(ports[0]!, (r) => r.cluster('KEYSLOT', key));
      let owner: { master: number; replica: number } | undefined;
      // The asked node learns who replicates whom by gossip: a replica in sync may not be in its table yet.
      await until("the slot's master and its replica in the cluster table", async () => {
        const rows = await table(ports[0]!);
        const master = rows.find((row) => row.master && row.slots.some(([from, to]) => slot >= from && slot <= to));
        const replica = master && rows.find((row) => row.replicaOf === master.id);
        owner = master && replica && { master: master.port, replica: replica.port };
        return owner !== undefined;
      });
      return owner!;
    },
    async promoted(key, dead) {
      const slot = await onNode(liveNode(dead), (r) => r.cluster('KEYSLOT', key));
      let owner: number | undefined;
      await until('a replica promoted in place of the killed master', async () => {
        const rows = await softly(() => table(liveNode(dead)));
        owner = rows?.find((row) => row.master && !row.failed && row.port !== dead && row.slots.some(([f, t]) => slot >= f && slot <= t))?.port;
        return owner !== undefined;
      });
      return owner!;
    },
    stop,
  };
}

interface NodeRow {
  id: string;
  port: number;
  master: boolean;
  failed: boolean;
  replicaOf: string | undefined;
  slots: Array<[number, number]>;
}

function parseNodes(text: string): NodeRow[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, replicaOf, , , , , ...slots] = line.split(' ');
      const flagList = flags!.split(',');
      return {
        id: id!,
        port: Number(address!.split('@')[0]!.split(':')[1]),
        master: flagList.includes('master'),
        failed: flagList.includes('fail'),
        replicaOf: replicaOf === '-' ? undefined : replicaOf,
        slots: slots
          .filter((range) => !range.startsWith('['))
          .map((range) => {
            const [from, to] = range.split('-').map(Number);
            return [from!, to ?? from!] as [number, number];
          }),
      };
    });
}

export interface PrivateSentinelGroup {
  /** REDIS_URL in sentinel mode: the sentinels. */
  readonly sentinels: string;
  readonly masterName: string;
  readonly primary: RedisProcess;
  readonly replica: RedisProcess;
  /** The sentinels, in the order of `sentinels`. */
  readonly sentinelNodes: readonly RedisProcess[];
  /** Resolves once the sentinels name the replica the primary; returns its port. */
  promoted(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * A primary on `ports[0]`, its replica on `ports[1]`, and three sentinels on `ports[2..4]` (quorum
 * 2, `down-after-milliseconds 1000`), ready once the replica is in sync and the sentinels know each other.
 */
export async function startSentinelGroup(ports: readonly number[], masterName = 'pgwmaster'): Promise<PrivateSentinelGroup> {
  const [primaryPort, replicaPort, ...sentinelPorts] = ports as [number, number, ...number[]];
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pgw-sentinel-'));
  const { processes, stop } = processGroup(dir);
  try {
    const primary = await startProcess(primaryPort, dataNodeArgs(primaryPort, dir));
    processes.push(primary);
    const replicaArgs = [...dataNodeArgs(replicaPort, dir), '--replicaof', '127.0.0.1', String(primaryPort)];
    const replica = await startProcess(replicaPort, replicaArgs);
    processes.push(replica);
    await until('the replica in sync', async () => (await softly(() => onNode(replicaPort, (r) => r.info('replication'))))?.includes('master_link_status:up') === true);
    const sentinelNodes: RedisProcess[] = [];
    for (const port of sentinelPorts) {
      const config = path.join(dir, `sentinel-${port}.conf`);
      await writeFile(
        config,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${masterName} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${masterName} 1000`,
          `sentinel failover-timeout ${masterName} 5000`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
      const sentinel = await startProcess(port, [config, '--sentinel'], '+monitor master');
      processes.push(sentinel);
      sentinelNodes.push(sentinel);
    }
    await until('the sentinels know the replica and each other', async () => {
      const views = await Promise.all(
        sentinelPorts.map((port) =>
          softly(() => onNode(port, async (r) => [await r.call('SENTINEL', 'REPLICAS', masterName), await r.call('SENTINEL', 'SENTINELS', masterName)] as unknown[][])),
        ),
      );
      return views.every((view) => view !== undefined && view[0]!.length === 1 && view[1]!.length === sentinelPorts.length - 1);
    });
    const masterAddress = () =>
      softly(() => onNode(sentinelPorts[0]!, (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName) as Promise<[string, string]>));
    return {
      sentinels: sentinelPorts.map((port) => `redis://127.0.0.1:${port}`).join(','),
      masterName,
      primary,
      replica,
      sentinelNodes,
      async promoted() {
        await until('the sentinels promote the replica', async () => Number((await masterAddress())?.[1]) === replicaPort);
        return replicaPort;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
