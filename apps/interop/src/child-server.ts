import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** How to launch one server: a Node entry script, its arguments and extra environment. */
export interface ServerLaunch {
  /** Shown in errors. */
  name: string;
  /** Absolute path of the Node script to run. */
  entry: string;
  args?: string[];
  /** Added to a minimal environment (PATH only), so no proxy, Redis or cloud setting of ours leaks in. */
  env?: Record<string, string>;
  cwd?: string;
}

export interface StartOptions {
  /** How long the server may take to listen. Default 20 000 ms (a cold start takes ~1.5 s here; the margin is for a busy 2-core machine), under the 30 s hook timeout of the tests. */
  readyTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL. Default 5 000 ms. */
  stopTimeoutMs?: number;
}

export interface ChildServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  pid: number;
  /** The server's recent stdout and stderr (the last 16 KiB), for diagnosing a failed test. */
  output(): string;
  /** SIGTERM, then SIGKILL after `stopTimeoutMs`; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

const PRELOAD = new URL('./loopback-preload.mjs', import.meta.url).pathname;
const OUTPUT_LIMIT = 16 * 1024;

/** Children still running, killed if this process exits without stopping them. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/**
 * Starts a server as a child Node process pinned to 127.0.0.1 (see loopback-preload.mjs) and
 * resolves once it listens; rejects with the server's output if it exits or times out first.
 */
export async function startChildServer(launch: ServerLaunch, options: StartOptions = {}): Promise<ChildServer> {
  const readyTimeoutMs = options.readyTimeoutMs ?? 20_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 5_000;
  const child = spawn(process.execPath, ['--import', PRELOAD, launch.entry, ...(launch.args ?? [])], {
    cwd: launch.cwd,
    env: { PATH: process.env['PATH'] ?? '', ...launch.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  track(child);
  let output = '';
  const capture = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', capture);
  child.stderr?.on('data', capture);

  const stop = stopper(child, stopTimeoutMs);
  try {
    const port = await listeningPort(child, readyTimeoutMs);
    return { url: `http://127.0.0.1:${port}`, port, pid: child.pid ?? -1, output: () => output, stop };
  } catch (error) {
    await stop();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${launch.name} did not start: ${reason}\n--- its output ---\n${output}`, { cause: error });
  }
}

function listeningPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => settle(() => reject(new Error(`no listening socket after ${timeoutMs} ms`))), timeoutMs);
    const onMessage = (message: unknown): void => {
      const m = message as { kind?: unknown; port?: unknown } | null;
      if (m?.kind === 'listening' && typeof m.port === 'number') settle(() => resolve(m.port as number));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
      settle(() => reject(new Error(`exited before listening (code ${code}, signal ${signal})`)));
    const onError = (error: Error): void => settle(() => reject(error));
    function settle(finish: () => void): void {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
      finish();
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

function stopper(child: ChildProcess, timeoutMs: number): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
        child.stdout?.destroy();
        child.stderr?.destroy();
        if (child.connected) child.disconnect();
      }
    })();
    return stopping;
  };
}
