/**
 * A PostgreSQL server of a test's own (initdb into a temp dir, TCP on loopback only, no Unix
 * socket), which it may stop and start again: never the shared one. As root the server runs as
 * the `postgres` user, which PostgreSQL requires.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spareFreePort } from './private-redis.js';

const READY = 'database system is ready to accept connections';
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust authentication). */
  readonly dsn: string;
  readonly port: number;
  /** Fast shutdown (SIGINT; SIGKILL if it lingers), awaited. Safe to call when stopped. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  destroy(): Promise<void>;
}

/** The directory of `initdb` and `postgres`: `PGW_PG_BIN`, else Debian's newest, else the PATH. */
function binDir(): string | undefined {
  if (process.env['PGW_PG_BIN']) return process.env['PGW_PG_BIN'];
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? undefined : join(root, versions[0]!, 'bin');
}

/** PostgreSQL refuses to run as root: as root, children run as `postgres`. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const program = (name: string) => (bin === undefined ? name : join(bin, name));
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'pgw-private-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  try {
    execFileSync(program('initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'], {
      stdio: 'pipe',
      ...user,
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  let port = await spareFreePort();
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    const server = spawn(
      program('postgres'),
      ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
      { stdio: ['ignore', 'ignore', 'pipe'], ...user },
    );
    child = server;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`postgres did not start on ${port}: ${output}`)), START_TIMEOUT_MS);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (!output.includes(READY)) return;
        clearTimeout(timer);
        server.stderr!.off('data', onData);
        server.stderr!.resume();
        resolve();
      };
      server.stderr!.on('data', onData);
      server.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`postgres exited with ${code}: ${output}`));
      });
    }).catch(async (error: unknown) => {
      await stop();
      throw error;
    });
  };
  const stop = async (): Promise<void> => {
    const server = child;
    child = undefined;
    if (server === undefined || server.exitCode !== null || server.signalCode !== null) return;
    const exited = once(server, 'exit');
    server.kill('SIGINT');
    const timer = setTimeout(() => server.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  // A spare port may be taken between the probe and the bind: try another.
  for (let attempt = 1; ; attempt++) {
    try {
      await launch();
      break;
    } catch (error) {
      if (attempt === 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      port = await spareFreePort();
    }
  }
  return {
    get dsn() {
      return `postgres://postgres@127.0.0.1:${port}/postgres`;
    },
    get port() {
      return port;
    },
    stop,
    start: launch,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
