/** A redis-server of a test's own, which it may kill, freeze or restart: never the shared one. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

/** A port nothing listens on (bound then freed by the OS). */
export async function spareFreePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

export interface PrivateRedis {
  readonly url: string;
  readonly child: ChildProcess;
  /** Kills the server (SIGKILL) and waits for it to exit. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * A redis-server of this test's own, on a spare port (or `port`, e.g. to restart one), without
 * persistence unless `aofDir` is given (append-only file there, fsync on every write): a server the
 * test may kill. A spare port can be taken by someone else between the probe and the spawn, so that
 * case tries another.
 */
export async function startPrivateRedis(port?: number, aofDir?: string): Promise<PrivateRedis> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(port ?? (await spareFreePort()), aofDir);
    } catch (error) {
      if (port !== undefined || attempt === 3) throw error;
    }
  }
}

async function startOn(chosen: number, aofDir?: string): Promise<PrivateRedis> {
  const persistence = aofDir === undefined ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', aofDir];
  const { child, stop } = await spawnRedisServer(['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', ...persistence]);
  return { url: `redis://127.0.0.1:${chosen}`, child, stop };
}

/**
 * `redis-server args…` (a data node, or a sentinel with `--sentinel`), resolved once its log says
 * `ready`; `stop()` SIGKILLs it and waits for the exit (safe to call twice). A server that exits or
 * stays silent for 10 s is an error, and is killed.
 */
export async function spawnRedisServer(
  args: readonly string[],
  ready = 'Ready to accept connections',
): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn('redis-server', [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server ${args.join(' ')} did not start: ${output}`)), 10_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(ready)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${output}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  child.stdout!.resume();
  child.stderr!.resume();
  return { child, stop };
}
