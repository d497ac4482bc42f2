import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/mock-upstream.mjs', import.meta.url));
let dir: string | undefined;

afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('mock-upstream CLI', () => {
  it('starts from a script file, prints each source, serves /health, and stops on SIGTERM', async () => {
    dir = await mkdtemp(join(tmpdir(), 'pgw-mock-cli-'));
    const scriptPath = join(dir, 'script.json');
    await writeFile(scriptPath, JSON.stringify({ sources: { alpha: {}, beta: { healthy: false } } }));

    const child = spawn(process.execPath, [BIN, '--port', '0', '--script', scriptPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = once(child, 'exit');
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    await expect.poll(() => stdout, { timeout: 15_000 }).toMatch(/beta: openai \S+/);

    const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stdout).toContain(`alpha: openai ${url}/alpha/v1`);
    const health = await fetch(`${url}/alpha/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${url}/beta/health`)).status).toBe(503);

    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(stdout).toContain('mock-upstream stopped');
  });

  it('exits with code 2 and a clear message on a bad flag', async () => {
    const child = spawn(process.execPath, [BIN, '--port', 'nope'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(stderr).toContain('--port');
  });

  it('ignores the leading -- that `pnpm start -- --port …` passes on', async () => {
    const child = spawn(process.execPath, [BIN, '--', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = once(child, 'exit');
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    await expect.poll(() => stdout, { timeout: 15_000 }).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    child.kill('SIGTERM');
    await exited;
  });
});
