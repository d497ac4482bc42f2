/** `runAgent`'s bounds, on a shell rather than an agent (every Node): the timeout kills the whole group, and so does the exit. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../src/index.js';

/** Whether `pid` still runs (a zombie waiting for its reaper does not), asked for up to a second. */
async function stillRuns(pid: number): Promise<boolean> {
  const runs = () => {
    try {
      return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  for (let tries = 0; tries < 20 && runs(); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
  return runs();
}

describe('runAgent', () => {
  it('kills the run and what it started at the timeout', async () => {
    const run = await runAgent('sh', ['-c', 'sleep 30 & echo $!; wait'], { cwd: process.cwd(), env: { PATH: process.env['PATH'] ?? '' }, timeoutMs: 300 });
    expect(run).toMatchObject({ timedOut: true, code: null, signal: 'SIGKILL' });
    expect(await stillRuns(Number(run.stdout.trim()))).toBe(false);
  });

  it('kills what the run left behind once it exits, with its exit code and output', async () => {
    const run = await runAgent('sh', ['-c', 'sleep 30 >/dev/null 2>&1 & echo $!; echo oops >&2; exit 3'], { cwd: process.cwd(), env: { PATH: process.env['PATH'] ?? '' } });
    expect(run).toMatchObject({ timedOut: false, code: 3, stderr: 'oops\n' });
    expect(await stillRuns(Number(run.stdout.trim()))).toBe(false);
  });
});
