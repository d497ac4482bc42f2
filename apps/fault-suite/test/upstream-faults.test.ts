/**
 * Upstreams that misbehave, served by the loopback mock: never answering, stalling after the
 * headers, truncating the stream, lying with HTML or broken JSON under a 200, and 429 storms with
 * every kind of Retry-After. Each call ends, with an error of the taxonomy and no socket left open.
 */
import {
  AllSourcesExhausted,
  CallDeadlineExceeded,
  CircuitOpenError,
  GatewayClient,
  GatewayUnavailableError,
  ResultInvalidError,
} from '@pgw/client';
import type { MockUpstream, SourceScript } from '@pgw/mock-upstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatScope, ms, printFigures, recordFigure, startMock, uniqueName, until } from '../src/index.js';

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(async () => {
  await mock.close();
  printFigures();
});

const QUICK_BACKOFF = { RETRY__BACKOFF_BASE_S: '0.01', RETRY__BACKOFF_MAX_S: '0.05' };
const PAST_DATE = 'Wed, 21 Oct 2015 07:28:00 GMT';

interface Case {
  name: string;
  script: SourceScript;
  sourceKeys?: Record<string, string>;
  scopeKeys?: Record<string, string>;
  /** `false`: the transport asks for a plain JSON answer instead of a stream. */
  stream?: boolean;
  expected: { error?: new (...args: never[]) => Error; requests: number; minMs?: number };
}

const HANG_BOUND = { sourceKeys: { TIMEOUT_S: '0.5' }, scopeKeys: { MAX_ATTEMPTS: '2', ...QUICK_BACKOFF } };

const CASES: Case[] = [
  { name: 'never answers', script: { otherwise: { kind: 'hang' } }, ...HANG_BOUND, expected: { error: AllSourcesExhausted, requests: 2, minMs: 1_000 } },
  {
    name: 'stalls after the headers (stream)',
    script: { otherwise: { kind: 'stall', afterTokens: 0 } },
    ...HANG_BOUND,
    expected: { error: AllSourcesExhausted, requests: 2, minMs: 1_000 },
  },
  {
    name: 'stalls after the headers and half the body (JSON)',
    script: { otherwise: { kind: 'stall' } },
    stream: false,
    ...HANG_BOUND,
    expected: { error: AllSourcesExhausted, requests: 2, minMs: 1_000 },
  },
  {
    name: 'truncates the SSE stream once',
    script: { content: 'one two three', steps: [{ kind: 'truncate', afterTokens: 1 }] },
    scopeKeys: { MAX_ATTEMPTS: '3', ...QUICK_BACKOFF },
    expected: { requests: 2 },
  },
  {
    name: 'truncates every SSE stream',
    script: { otherwise: { kind: 'truncate', afterTokens: 1 } },
    scopeKeys: { MAX_ATTEMPTS: '3', ...QUICK_BACKOFF },
    expected: { error: AllSourcesExhausted, requests: 3 },
  },
  {
    name: 'returns an HTML page with 200',
    script: { otherwise: { kind: 'status', status: 200, body: '<!doctype html><html><body>Bad gateway</body></html>', headers: { 'content-type': 'text/html' } } },
    scopeKeys: { MAX_ATTEMPTS: '3' },
    expected: { error: ResultInvalidError, requests: 1 },
  },
  {
    name: 'returns invalid JSON with 200',
    script: { otherwise: { kind: 'malformed' } },
    stream: false,
    scopeKeys: { MAX_ATTEMPTS: '3' },
    expected: { error: ResultInvalidError, requests: 1 },
  },
  {
    name: '429 storm, Retry-After: 0',
    script: { otherwise: { kind: 'rate_limit', retryAfter: '0' } },
    scopeKeys: { ...QUICK_BACKOFF },
    expected: { error: CircuitOpenError, requests: 5 },
  },
  {
    name: '429 storm, Retry-After: 0, CIRCUIT_OPEN=wait',
    script: { otherwise: { kind: 'rate_limit', retryAfter: '0' } },
    scopeKeys: { CIRCUIT_OPEN: 'wait', BREAKER__COOLDOWN_S: '0.2', BACKPRESSURE__STALL_WINDOW_S: '1', ...QUICK_BACKOFF },
    expected: { error: GatewayUnavailableError, requests: 5, minMs: 1_000 },
  },
  {
    name: '429 storm, Retry-After: 86400 (a day), call deadline 1 s',
    script: { otherwise: { kind: 'rate_limit', retryAfter: '86400' } },
    scopeKeys: { CALL_DEADLINE_S: '1', ...QUICK_BACKOFF },
    expected: { error: CallDeadlineExceeded, requests: 1, minMs: 1_000 },
  },
  {
    name: '429 storm, Retry-After: a past HTTP-date',
    script: { otherwise: { kind: 'rate_limit', retryAfter: PAST_DATE } },
    scopeKeys: { ...QUICK_BACKOFF },
    expected: { error: CircuitOpenError, requests: 5 },
  },
];

describe('upstream faults', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const scope = uniqueName('up');
    const { source, env } = chatScope(mock, scope, c.script, c.sourceKeys, c.scopeKeys);
    const client = await GatewayClient.fromEnv(scope, {
      env: { ...env, PGW_CACHE_BACKEND: 'none' },
      warn: () => {},
      ...(c.stream === false && { stream: false }),
    });
    const started = performance.now();
    const outcome = await client.chat([{ role: 'user', content: 'hi' }]).then(
      (response) => ({ response, error: undefined }),
      (error: unknown) => ({ response: undefined, error }),
    );
    const elapsedMs = performance.now() - started;
    await client.close();

    const counters = mock.counters(source);
    if (c.expected.error) expect(outcome.error).toBeInstanceOf(c.expected.error);
    else expect(outcome.error).toBeUndefined();
    // A 429 storm is bounded by the breaker or the stall rule, not a fixed count: at least the expected requests.
    if (c.name.startsWith('429')) expect(counters.chat).toBeGreaterThanOrEqual(c.expected.requests);
    else expect(counters.chat).toBe(c.expected.requests);
    await until('the mock to see no request in flight', () => mock.counters(source).inflight === 0, 5_000);
    if (c.expected.minMs !== undefined) expect(elapsedMs).toBeGreaterThanOrEqual(c.expected.minMs - 20);
    const result = outcome.error instanceof Error ? outcome.error.name : `answer after ${outcome.response?.callStats.attempts} attempts`;
    recordFigure(c.name, `${result} after ${ms(elapsedMs)}, ${counters.chat} upstream requests, 0 left open`);
  });
});
