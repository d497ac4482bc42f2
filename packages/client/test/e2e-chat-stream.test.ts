/**
 * GatewayClient.chatStream end to end against the loopback mock: real SSE over real sockets, memory
 * backends. Retry and failover happen only before the first content token.
 */
import { InMemoryGovernor } from '@pgw/backend-memory';
import { TEST_BREAKER_POLICY } from '@pgw/testkit';
import { probeHandles } from '@pgw/mock-upstream';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AllSourcesExhausted,
  CallDeadlineExceeded,
  GatewayClient,
  StreamInterruptedError,
} from '../src/index.js';
import { MemoryRecorder } from '@pgw/core';
import type { ChatDelta, ChatStream, GatewayClientOverrides } from '../src/index.js';
import { MockFixture, outcome, scopeKeys, uniqueScope } from './helpers/e2e.js';

const HI = [{ role: 'user' as const, content: 'hi' }];
const MEMORY = { PGW_LIMITER_BACKEND: 'memory', PGW_CACHE_BACKEND: 'memory' };

const fixture = MockFixture.use();

/** A client on a fresh scope over `sources` (tried in this order), with an inspectable limiter and recorder. */
async function withClient<T>(
  sources: string[],
  keys: Record<string, string>,
  run: (client: GatewayClient, parts: { limiter: InMemoryGovernor['limiter']; recorder: MemoryRecorder }) => Promise<T>,
  overrides: GatewayClientOverrides = {},
): Promise<T> {
  const scope = uniqueScope('stream');
  const env: Record<string, string> = {
    ...MEMORY,
    ...scopeKeys(scope, {
      SELECTOR: 'ordered',
      SOURCES: sources.join(','),
      RETRY__BACKOFF_BASE_S: '0.01',
      RETRY__BACKOFF_MAX_S: '0.05',
      CACHE__NAMESPACE: scope,
      ...keys,
    }),
  };
  for (const name of sources) Object.assign(env, fixture.sourceKeys(scope, name));
  const unlimited = { rpm: 0, tpm: 0, maxConcurrency: 0 };
  const governor = new InMemoryGovernor({
    scope,
    sources: Object.fromEntries(sources.map((name) => [name, unlimited])),
    global: unlimited,
    leaseTtlMs: 600_000,
    policy: TEST_BREAKER_POLICY,
  });
  const recorder = new MemoryRecorder();
  const client = await GatewayClient.fromEnv(scope, { env, warn: () => {}, governor, recorder, ...overrides });
  try {
    return await run(client, { limiter: governor.limiter, recorder });
  } finally {
    await client.close();
  }
}

async function collect(stream: ChatStream): Promise<{ deltas: ChatDelta[]; error?: unknown }> {
  const deltas: ChatDelta[] = [];
  try {
    for await (const delta of stream) deltas.push(delta);
    return { deltas };
  } catch (error) {
    return { deltas, error };
  }
}

/** Resolves once the mock has no request of `name` in flight (the client's socket is gone). */
async function idle(name: string): Promise<void> {
  while (fixture.mock.counters(name).inflight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
}

const contents = (deltas: ChatDelta[]) => deltas.flatMap((delta) => (delta.content === undefined ? [] : [delta.content]));

describe('GatewayClient.chatStream', () => {
  it('yields reasoning, then content token by token; response.content is the concatenation, usage measured', async () => {
    const thinker = fixture.source('thinker', { reasoning: 'let me see', content: 'one two three four', interTokenMs: 2 });
    await withClient([thinker], {}, async (client, { recorder }) => {
      const stream = client.chatStream(HI);
      const { deltas, error } = await collect(stream);
      expect(error).toBeUndefined();
      expect(deltas).toEqual([
        { reasoningContent: 'let ' },
        { reasoningContent: 'me ' },
        { reasoningContent: 'see' },
        { content: 'one ' },
        { content: 'two ' },
        { content: 'three ' },
        { content: 'four' },
      ]);
      const response = await stream.response;
      expect(response).toMatchObject({ content: 'one two three four', reasoningContent: 'let me see', source: thinker, cached: false });
      expect(response.usage.usageSource).toBe('measured');
      expect(response.callStats).toMatchObject({ attempts: 1, sourcesTried: [thinker] });
      expect(recorder.rows.map((row) => `${row.eventKind}:${row.status}`)).toEqual(['attempt:ok']);
    });
  });

  it('fails over when the first source fails before any content token (its reasoning was shown, but does not commit)', async () => {
    const broken = fixture.source('broken', { otherwise: { kind: 'status', status: 500 } });
    const cutThinking = fixture.source('cut_thinking', { reasoning: 'hmm let me see', steps: [{ kind: 'truncate', afterTokens: 2 }] });
    const healthy = fixture.source('healthy', { content: 'fine answer' });
    await withClient([broken, cutThinking, healthy], { MAX_ATTEMPTS: '3' }, async (client) => {
      const stream = client.chatStream(HI);
      const { deltas, error } = await collect(stream);
      expect(error).toBeUndefined();
      expect(deltas).toEqual([{ reasoningContent: 'hmm ' }, { reasoningContent: 'let ' }, { content: 'fine ' }, { content: 'answer' }]);
      const response = await stream.response;
      expect(response).toMatchObject({ content: 'fine answer', source: healthy });
      expect(response.callStats).toMatchObject({ attempts: 3, sourcesTried: [broken, cutThinking, healthy] });
      expect(fixture.mock.counters(broken).chat).toBe(1);
      expect(fixture.mock.counters(cutThinking).chat).toBe(1);
    });
  });

  it('never retries after the first content token: a truncated stream yields its 3 tokens, then StreamInterruptedError', async () => {
    const cut = fixture.source('cut', { content: 'one two three four five', steps: [{ kind: 'truncate', afterTokens: 3 }] });
    const spare = fixture.source('spare');
    await withClient([cut, spare], {}, async (client, { limiter, recorder }) => {
      const stream = client.chatStream(HI);
      const { deltas, error } = await collect(stream);
      expect(contents(deltas)).toEqual(['one ', 'two ', 'three ']);
      expect(error).toBeInstanceOf(StreamInterruptedError);
      expect(error).toBeInstanceOf(AllSourcesExhausted);
      expect(error).toMatchObject({ sourceName: cut, partialContent: 'one two three ', perSourceReasons: { [cut]: 'transient:truncated 200' } });
      await expect(stream.response).rejects.toBe(error);
      expect(fixture.mock.counters(cut).chat).toBe(1);
      expect(fixture.mock.counters(spare).chat).toBe(0);
      expect((await limiter.sourceStats(cut)).inflight).toBe(0);
      expect(recorder.rows.map((row) => `${row.eventKind}:${row.errorType}`)).toEqual([
        'attempt:TransientError',
        'terminal_failure:StreamInterruptedError',
      ]);
    });
  });

  it('break aborts the attempt: the mock sees the request end, the permit is released, a cancelled row is written', async () => {
    const slow = fixture.source('slow', { content: 'first second third', interTokenMs: 30_000 });
    await withClient([slow], {}, async (client, { limiter, recorder }) => {
      const stream = client.chatStream(HI);
      for await (const delta of stream) {
        expect(delta).toEqual({ content: 'first ' });
        break;
      }
      expect((await limiter.sourceStats(slow)).inflight).toBe(0);
      expect(recorder.rows.map((row) => `${row.eventKind}:${row.status}:${row.error}`)).toEqual([
        'attempt:cancelled:cancelled',
        'terminal_failure:cancelled:cancelled',
      ]);
      await expect(stream.response).rejects.toMatchObject({ name: 'AbortError' });
      await idle(slow);
      expect(fixture.mock.counters(slow)).toMatchObject({ chat: 1, inflight: 0 });
    });
  });

  it('deadline expiry mid-stream: the delivered token, then CallDeadlineExceeded', async () => {
    const slow = fixture.source('slow', { content: 'first second', interTokenMs: 30_000 });
    await withClient([slow], { CALL_DEADLINE_S: '0.3' }, async (client, { limiter }) => {
      const started = performance.now();
      const { deltas, error } = await collect(client.chatStream(HI));
      expect(deltas).toEqual([{ content: 'first ' }]);
      expect(error).toBeInstanceOf(CallDeadlineExceeded);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
      expect((await limiter.sourceStats(slow)).inflight).toBe(0);
      expect(fixture.mock.counters(slow).chat).toBe(1);
    });
  });

  it('a cache hit streams the cached answer as one delta; cacheBypass goes upstream', async () => {
    const cached = fixture.source('cached', { content: 'stored answer' });
    await withClient([cached], {}, async (client) => {
      expect(contents((await collect(client.chatStream(HI))).deltas)).toEqual(['stored ', 'answer']);
      const hit = client.chatStream(HI);
      expect(await collect(hit)).toEqual({ deltas: [{ content: 'stored answer' }] });
      await expect(hit.response).resolves.toMatchObject({ cached: true, callStats: { attempts: 0 } });
      await expect(client.chatStream(HI, { cacheBypass: true }).response).resolves.toMatchObject({ cached: false });
      expect(fixture.mock.counters(cached).chat).toBe(2);
    });
  });

  it('refuses structured output and bad arguments at once, before anything is sent', async () => {
    const unused = fixture.source('unused');
    await withClient([unused], {}, async (client, { recorder }) => {
      const structured = { structured: z.object({ n: z.number() }) } as Record<string, unknown>;
      expect(() => client.chatStream(HI, structured)).toThrow(/chatStream\(structured\) is not supported/);
      expect(() => client.chatStream([], {})).toThrow(RangeError);
      expect(() => client.chatStream(HI, { callDeadlineMs: -1 })).toThrow(/chatStream\(callDeadlineMs\)/);
      expect(fixture.mock.counters(unused).chat).toBe(0);
      expect(recorder.rows).toEqual([]);
    });
  });

  it('leaves no socket or timer open after close(), after a complete, a broken and an abandoned stream', async () => {
    const steps = [{ kind: 'ok' as const }, { kind: 'truncate' as const, afterTokens: 1 }, { kind: 'stall' as const, afterTokens: 1 }];
    const source = fixture.source('handles', { content: 'a b c', steps });
    const probe = probeHandles();
    const scope = uniqueScope('handles');
    const env = { ...MEMORY, ...scopeKeys(scope, { CACHE__NAMESPACE: scope, CALL_DEADLINE_S: '30' }), ...fixture.sourceKeys(scope, source) };
    const client = await GatewayClient.fromEnv(scope, { env, warn: () => {} });
    try {
      await expect(client.chatStream(HI, { cacheBypass: true }).response).resolves.toMatchObject({ content: 'a b c' });
      expect((await collect(client.chatStream(HI, { cacheBypass: true }))).error).toBeInstanceOf(StreamInterruptedError);
      const abandoned = client.chatStream(HI, { cacheBypass: true });
      for await (const delta of abandoned) {
        expect(delta).toEqual({ content: 'a ' });
        break;
      }
      expect((await outcome(() => abandoned.response)).error).toMatchObject({ name: 'AbortError' });
      expect(fixture.mock.counters(source).chat).toBe(3);
    } finally {
      await client.close();
    }
    await idle(source);
    expect(await probe.leftovers()).toEqual([]);
  });
});
