/**
 * The real binary, spawned, against the mock upstream on loopback. Each spawn pays the tsx start-up,
 * so the cases run concurrently and each groups its assertions.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startMockUpstream, type MockUpstream } from '@pgw/mock-upstream';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { EXIT } from '../src/exit-codes.js';
import { removeTempDirs, runCli, tempDir } from './run-cli.js';

let mock: MockUpstream;
/** A loopback port nothing listens on. */
let closedPort: number;

beforeAll(async () => {
  mock = await startMockUpstream({
    port: 0,
    host: '127.0.0.1',
    seed: 1,
    script: {
      sources: {
        good: { content: 'the answer is 42', usage: { prompt_tokens: 11, completion_tokens: 5 } },
        /** 1 × 0.15 + 3 × 0.6 USD per million tokens is 0.0000019499999999999995 in floating point. */
        noisy: { usage: { prompt_tokens: 1, completion_tokens: 3 } },
        emb: { embeddingDim: 8 },
        /** Used only where configuration errors must stop everything before a request. */
        cfg: {},
        down: { otherwise: { kind: 'status', status: 503 } },
        hang: { otherwise: { kind: 'hang' } },
        echo: { otherwise: { kind: 'status', status: 400, body: ECHOED_KEY_BODY } },
      },
    },
  });
  closedPort = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
});

afterAll(async () => {
  await mock?.close();
  removeTempDirs();
});

const source = (scope: string, name: string, baseUrl: string, model = 'gpt-4o-mini') => ({
  [`${scope}__SOURCE__${name}__BASE_URL`]: baseUrl,
  [`${scope}__SOURCE__${name}__MODEL`]: model,
});
const API_KEY = 'Zq8/kR2+secret"Xw-7c1e';
/** The key JSON-escaped, then the key repeated past the 64 KiB error-read cap, so the read ends inside one. */
const ECHOED_KEY_BODY = `{"error":"bad key ${JSON.stringify(API_KEY).slice(1, -1).replaceAll('/', '\\/')}"} ${API_KEY.repeat(10_000)}`;

/** Fast retries, so a failing call ends quickly. */
const QUICK_RETRY = { LLM__MAX_ATTEMPTS: '2', LLM__RETRY__BACKOFF_BASE_S: '0.01', LLM__RETRY__BACKOFF_MAX_S: '0.02' };

describe.concurrent('pgw (spawned)', () => {
  test('chat prints the answer on stdout and the call stats on stderr; --json prints the LLMResponse', async () => {
    const env = source('LLM', 'GOOD', mock.baseUrl('good'));
    const [plain, json] = await Promise.all([
      runCli(['chat', 'What is six times seven?'], { env }),
      runCli(['chat', 'hi', '--json'], { env }),
    ]);

    expect(plain.code, plain.stderr).toBe(EXIT.ok);
    expect(plain.stdout).toBe('the answer is 42\n');
    expect(plain.stderr).toMatch(
      /source good \(model gpt-4o-mini\) · attempts 1 · latency \d+ ms · tokens 11 in \/ 5 out \(measured\) · cost \$0\.\d+/,
    );

    expect(json.code, json.stderr).toBe(EXIT.ok);
    const response = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(response).toMatchObject({ content: 'the answer is 42', source: 'good', cached: false, callStats: { attempts: 1 } });
    expect(response.usage).toMatchObject({ promptTokens: 11, completionTokens: 5, usageSource: 'measured' });
  });

  test('a malformed key exits 3 naming the key before any request; a missing argument exits 2', async () => {
    const [badKey, missingArgument] = await Promise.all([
      runCli(['chat', 'hi'], { env: { ...source('LLM', 'A', mock.baseUrl('cfg')), LLM__SOURCE__A__RPM: 'abc' } }),
      runCli(['chat']),
    ]);
    expect(badKey.code).toBe(EXIT.config);
    expect(badKey.stderr).toContain('LLM__SOURCE__A__RPM');
    expect(badKey.stderr).toContain('is not a number');
    expect(mock.counters('cfg').total).toBe(0);

    expect(missingArgument.code).toBe(EXIT.usage);
    expect(missingArgument.stderr).toContain("missing required argument 'message'");
  });

  test('a failing upstream exits 1 with the gateway error and the last attempt error', async () => {
    const run = await runCli(['chat', 'hi'], { env: { ...source('LLM', 'DOWN', mock.baseUrl('down')), ...QUICK_RETRY } });
    expect(run.code).toBe(EXIT.callFailed);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^pgw: AllSourcesExhausted: .*attempt budget of 2 spent/m);
    expect(run.stderr).toMatch(/last error: TransientError: .*503/);
  });

  test('an upstream echoing the API key: stderr holds neither the key nor a prefix of it', async () => {
    const env = { ...source('LLM', 'ECHO', mock.baseUrl('echo')), LLM__SOURCE__ECHO__API_KEY: API_KEY, LLM__MAX_ATTEMPTS: '1' };
    const run = await runCli(['chat', 'hi'], { env });
    expect(run.code).toBe(EXIT.callFailed);
    expect(run.stderr).toContain('[redacted]');
    for (const start of ['Zq8/', 'Zq8\\/', 'Zq8%2F']) expect(run.stderr).not.toContain(start);
  });

  test('SIGINT aborts the in-flight call and exits 130', async () => {
    let child: ChildProcess | undefined;
    const running = runCli(['chat', 'hi'], { env: source('LLM', 'HANG', mock.baseUrl('hang')), onSpawn: (c) => (child = c) });
    // Interrupt only once the request is in flight at the mock.
    await vi.waitFor(() => expect(mock.counters('hang').inflight).toBe(1), { timeout: 20_000, interval: 50 });
    child!.kill('SIGINT');
    const run = await running;
    expect(run.code).toBe(EXIT.interrupted);
    expect(run.stderr).toContain('interrupted');
    // The hanging request was aborted, not left open.
    await vi.waitFor(() => expect(mock.counters('hang').inflight).toBe(0), { timeout: 5_000, interval: 50 });
  });

  test('embed writes one JSON line per non-blank input line, in batches', async () => {
    const dir = tempDir();
    const file = join(dir, 'lines.txt');
    const out = join(dir, 'vectors.jsonl');
    writeFileSync(file, 'alpha\n\nbeta\ngamma\n');
    const run = await runCli(['embed', '--file', file, '--out', out, '--batch', '2'], {
      env: source('EMBED', 'EMB', mock.baseUrl('emb'), 'text-embedding-3-small'),
    });

    expect(run.code, run.stderr).toBe(EXIT.ok);
    type Line = { index: number; text: string; embedding: number[] };
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as Line);
    expect(lines.map(({ index, text }) => ({ index, text }))).toEqual([
      { index: 0, text: 'alpha' },
      { index: 2, text: 'beta' },
      { index: 3, text: 'gamma' },
    ]);
    for (const line of lines) expect(line.embedding).toHaveLength(8);
    expect(mock.counters('emb').embeddings).toBe(2);
    // stderr is not a terminal here: plain lines, no carriage-return redraws.
    expect(run.stderr).toMatch(/^embedded 3\/3 in \d+\.\d s$/m);
    expect(run.stderr).not.toContain('\r');
  });

  test('check exits 0 when every source answers and 4 when one is dead', async () => {
    const good = source('LLM', 'GOOD', mock.baseUrl('good'));
    const [healthy, broken] = await Promise.all([
      runCli(['check'], { env: good }),
      runCli(['check', '--timeout', '5'], { env: { ...good, ...source('LLM', 'DEAD', `http://127.0.0.1:${closedPort}/v1`) } }),
    ]);

    expect(healthy.code, healthy.stdout + healthy.stderr).toBe(EXIT.ok);
    expect(healthy.stdout).toMatch(/configuration: ok, 1 source\(s\)/);
    expect(healthy.stdout).toMatch(/good\s+gpt-4o-mini\s+yes \(HTTP \d+\)\s+ok\s+\d+ ms\s+healthy/);
    expect(healthy.stdout).toContain('all sources healthy');

    expect(broken.code, broken.stdout + broken.stderr).toBe(EXIT.unhealthy);
    expect(broken.stdout).toMatch(/dead\s+gpt-4o-mini\s+no \(ECONNREFUSED\)\s+TransientError: .*UNHEALTHY/);
    expect(broken.stdout).toMatch(/good\s+.*healthy/);
    expect(broken.stdout).toContain('1 of 2 source(s) unhealthy');
  });


  test('check lists every malformed key and exits 3', async () => {
    const run = await runCli(['check'], {
      env: {
        ...source('LLM', 'GOOD', mock.baseUrl('cfg')),
        LLM__SOURCE__GOOD__RPM: 'abc',
        LLM__SELECTOR: 'bogus',
        LLM__SOURCE__GOOD__TIMOUT_S: '3',
      },
    });
    expect(run.code).toBe(EXIT.config);
    expect(run.stdout).toContain('configuration: 2 problem(s)');
    expect(run.stdout).toMatch(/✗ LLM__SOURCE__GOOD__RPM="abc": is not a number/);
    expect(run.stdout).toMatch(/✗ LLM__SELECTOR="bogus": must be one of/);
    expect(run.stdout).toMatch(/warning: .*LLM__SOURCE__GOOD__TIMOUT_S/);
    expect(mock.counters('cfg').total).toBe(0);
  });
});

// Sequential: these spawn several processes each, and the suite above already runs many at once.
describe('pgw (spawned): display, reachability and --mock', () => {
  test('--json prints the cost rounded for display, not its floating-point noise', async () => {
    const run = await runCli(['chat', 'hi', '--json'], { env: source('LLM', 'NOISY', mock.baseUrl('noisy')) });
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(run.stdout).toContain('"costUsd": 0.00000195');
  });

  test('check counts a 404 on the models route as not reachable', async () => {
    // The mock's unknown-source answer is a 404 on every route, chat included.
    const run = await runCli(['check', '--timeout', '5'], { env: source('LLM', 'GONE', `${mock.url}/no-such-source/v1`) });
    expect(run.code, run.stdout + run.stderr).toBe(EXIT.unhealthy);
    expect(run.stdout).toMatch(/gone\s+gpt-4o-mini\s+no \(HTTP 404\)\s+.*UNHEALTHY/);
  });

  test('--mock runs chat, embed and check against a local mock upstream, whatever the env says', async () => {
    const dir = tempDir();
    const file = join(dir, 'lines.txt');
    writeFileSync(file, 'alpha\nbeta\n');
    // A configured source elsewhere is set aside: --mock replaces the scope's sources.
    const elsewhere = source('LLM', 'ELSEWHERE', `http://127.0.0.1:${closedPort}/v1`);
    const [chat, json, embed, check, unconfigured, checkUnconfigured] = await Promise.all([
      runCli(['chat', '--mock', 'hello'], { env: elsewhere }),
      runCli(['chat', '--mock', '--json', 'hello']),
      runCli(['embed', '--mock', '--file', file]),
      runCli(['check', '--mock']),
      runCli(['chat', 'hello']),
      runCli(['check']),
    ]);

    expect(chat.code, chat.stderr).toBe(EXIT.ok);
    expect(chat.stdout).toBe('hello from mock\n');
    expect(chat.stderr).toMatch(/source mock \(model gpt-4o-mini\)/);
    expect(JSON.parse(json.stdout)).toMatchObject({ content: 'hello from mock', source: 'mock' });

    expect(embed.code, embed.stderr).toBe(EXIT.ok);
    expect(embed.stdout.trimEnd().split('\n')).toHaveLength(2);

    expect(check.code, check.stdout + check.stderr).toBe(EXIT.ok);
    expect(check.stdout).toMatch(/mock\s+gpt-4o-mini\s+yes \(HTTP 200\)\s+ok\s+\d+ ms\s+healthy/);

    // Without a source, the configuration error says how to try the local mock.
    expect(unconfigured.code).toBe(EXIT.config);
    expect(unconfigured.stderr).toContain('--mock');
    expect(checkUnconfigured.code).toBe(EXIT.config);
    expect(checkUnconfigured.stdout).toContain('--mock');
  }, 60_000);
});
