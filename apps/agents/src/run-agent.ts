/**
 * One agent run: the binary as a child in its own process group, stdin closed, a bounded time, and
 * the whole group (the agent's shells and sandbox helpers too) killed on the timeout and whenever
 * the run is over, so no process outlives it.
 */
import { spawn } from 'node:child_process';

export interface AgentRun {
  /** The exit code, `null` when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

export interface RunOptions {
  cwd: string;
  /** The child's whole environment: nothing of the test process's leaks in. */
  env: Record<string, string>;
  timeoutMs?: number;
}

const KEEP = 256 * 1024;

// The groups still running, killed should this process exit first (a test runner torn down mid-run).
const running = new Set<number>();
process.once('exit', () => {
  for (const pid of running) killGroup(pid);
});

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  running.delete(pid);
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

export function runAgent(command: string, args: readonly string[], { cwd, env, timeoutMs = 90_000 }: RunOptions): Promise<AgentRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (stdout = (stdout + chunk).slice(-KEEP)));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr = (stderr + chunk).slice(-KEEP)));
    if (child.pid !== undefined) running.add(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      killGroup(child.pid);
      reject(error);
    });
    // Its exit ends the run: the rest of the group is killed, and output still buffered is read for
    // at most a second (a helper outside the group may hold the pipes open).
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      killGroup(child.pid);
      const done = () => resolve({ code, signal, stdout, stderr, timedOut, ms: Math.round(performance.now() - started) });
      const late = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        done();
      }, 1_000);
      child.once('close', () => {
        clearTimeout(late);
        done();
      });
    });
  });
}

/** A run's outcome for an assertion message: exit, time, the tails of its output. */
export function describeRun(run: AgentRun): string {
  return `exit ${run.code ?? run.signal}${run.timedOut ? ' (timed out)' : ''} after ${run.ms} ms\n--- stdout\n${run.stdout.slice(-4_000)}\n--- stderr\n${run.stderr.slice(-4_000)}`;
}
