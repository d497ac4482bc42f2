/** Spawns the real `bin/pgw.mjs` (tsx, no build) with a clean environment and a fresh working directory. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PGW_BIN = fileURLToPath(new URL('../bin/pgw.mjs', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** The child's whole environment besides PATH: nothing leaks in from the test runner. */
  env?: Record<string, string>;
  /** Default: a fresh empty directory, so no stray `.env` is read. */
  cwd?: string;
  /** Called once the child runs (e.g. to signal it). */
  onSpawn?: (child: ChildProcess) => void;
}

const madeDirs: string[] = [];

/** A fresh directory under the OS temp dir, removed by `removeTempDirs`. */
export function tempDir(prefix = 'pgw-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** For each test file's `afterAll`. */
export function removeTempDirs(): void {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function runCli(args: string[], options: RunOptions = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [PGW_BIN, ...args], {
    cwd: options.cwd ?? tempDir(),
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A hung child must not outlive the suite.
    timeout: 30_000,
    killSignal: 'SIGKILL',
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  options.onSpawn?.(child);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServeRun {
  /** The run once the server exited. */
  exited: Promise<CliRun>;
  /** Its URL, once it says it listens (rejects if it exits first). */
  listening: Promise<string>;
  child(): ChildProcess;
  /** Resolves once its stderr, from now on, matches `pattern`. */
  stderrShows(pattern: RegExp): Promise<void>;
}

/** Spawns `pgw serve --port 0` with `env`. */
export function serveCli(env: Record<string, string>, args: string[] = []): ServeRun {
  let child: ChildProcess | undefined;
  const exited = runCli(['serve', '--port', '0', ...args], { env, onSpawn: (c) => (child = c) });
  /** The first match of `pattern` in the stderr written from now on. */
  const stderrMatch = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve) => {
      let seen = '';
      const watch = (chunk: string) => {
        seen += chunk;
        const match = pattern.exec(seen);
        if (match === null) return;
        child!.stderr!.off('data', watch);
        resolve(match);
      };
      child!.stderr!.on('data', watch);
    });
  const stderrShows = async (pattern: RegExp) => void (await stderrMatch(pattern));
  const listening = new Promise<string>((resolve, reject) => {
    void stderrMatch(/listening on (http:\/\/\S+)/).then((match) => resolve(match[1]!));
    void exited.then((run) => reject(new Error(`pgw serve exited ${run.code}: ${run.stderr}`)));
  });
  return { exited, listening, child: () => child!, stderrShows };
}
