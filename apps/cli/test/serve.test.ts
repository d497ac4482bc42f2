import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startMockUpstream, type MockUpstream } from '@pgw/mock-upstream';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { removeTempDirs, runCli, serveCli as serve, tempDir } from './run-cli.js';

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream({ port: 0, script: { sources: { slow: { latencyMs: 1_500, content: 'finished in time' }, main: {} } } });
});
afterAll(async () => {
  await mock.close();
  removeTempDirs();
});

const sourceEnv = (source: string) => ({ LLM__SOURCE__MAIN__BASE_URL: mock.baseUrl(source), LLM__SOURCE__MAIN__MODEL: 'gpt-4o-mini' });


describe('pgw serve', () => {
  test('SIGTERM lets the call in flight finish, flushes telemetry and exits 0; then the listener is closed', async () => {
    const dir = tempDir();
    const sqlite = join(dir, 'telemetry.sqlite');
    const server = serve({ ...sourceEnv('slow'), PGW_TELEMETRY_BACKEND: 'sqlite', PGW_SQLITE_PATH: sqlite, PGW_SERVER__DRAIN_S: '20' });
    const url = await server.listening;
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const inFlight = openai.chat.completions.create({ model: 'any', messages: [{ role: 'user', content: 'hi' }] });
    // The upstream has the request: the call is in flight when the signal comes.
    while (mock.counters('slow').inflight === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    server.child().kill('SIGTERM');
    const answer = await inFlight;
    expect(answer.choices[0]!.message.content).toBe('finished in time');
    const run = await server.exited;
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/draining/);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    const report = await runCli(['report', '--sqlite', sqlite, '--json']);
    expect((JSON.parse(report.stdout) as { summary: { calls: number } }).summary.calls).toBe(1);
  }, 40_000);

  test('a second SIGTERM exits at once', async () => {
    mock.setSource('slow', { steps: [{ kind: 'hang' }] });
    const server = serve({ ...sourceEnv('slow'), PGW_SERVER__DRAIN_S: '60' });
    const url = await server.listening;
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const hanging = openai.chat.completions.create({ model: 'any', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    while (mock.counters('slow').inflight === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    server.child().kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.child().kill('SIGTERM');
    const run = await server.exited;
    expect(run.code).toBe(143);
    expect(await hanging).toBeInstanceOf(OpenAI.APIConnectionError);
  }, 40_000);

  test('SIGHUP reads the key file again: a removed key is refused, a new one served', async () => {
    const keys = join(tempDir(), 'keys.json');
    writeFileSync(keys, JSON.stringify({ 'sk-team-a-0001': 'team-a' }));
    const server = serve({ ...sourceEnv('main'), PGW_SERVER__KEYS: keys, PGW_SERVER__DRAIN_S: '0' });
    const url = await server.listening;
    const ask = (apiKey: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 }).models.list().then(() => 200, (error: { status?: number }) => error.status);
    expect(await ask('sk-team-a-0001')).toBe(200);
    writeFileSync(keys, JSON.stringify({ 'sk-team-b-0002': 'team-b' }));
    const reloaded = server.stderrShows(/keys reloaded/);
    server.child().kill('SIGHUP');
    await reloaded;
    expect(await ask('sk-team-a-0001')).toBe(401);
    expect(await ask('sk-team-b-0002')).toBe(200);
    server.child().kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  }, 40_000);

  test('--mock serves chat and embeddings from a local mock upstream, whatever the scopes say', async () => {
    const unreachable = { LLM__SOURCE__MAIN__BASE_URL: 'http://127.0.0.1:9/v1', LLM__SOURCE__MAIN__MODEL: 'gpt-4o-mini', PGW_SERVER__DRAIN_S: '0' };
    const server = serve(unreachable, ['--mock']);
    const url = await server.listening;
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const answer = await openai.chat.completions.create({ model: 'any', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]!.message.content).toMatch(/hello/);
    const embedded = await openai.embeddings.create({ model: 'any', input: 'hi' });
    expect(embedded.data[0]!.embedding.length).toBeGreaterThan(0);
    server.child().kill('SIGTERM');
    const run = await server.exited;
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/local mock upstream/);
  }, 40_000);

  test('without API keys it refuses a non-loopback address, and says so', async () => {
    const run = await runCli(['serve', '--host', '0.0.0.0', '--port', '0'], { env: sourceEnv('main') });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/PGW_SERVER__KEYS/);
  }, 40_000);
});
