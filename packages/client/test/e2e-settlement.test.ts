/**
 * The settlement matrix S1–S8 (docs/architecture.md#settlement) on the governors users run —
 * InMemoryGovernor and RedisGovernor on a real Redis — through the clients and the loopback mock:
 * what each way an attempt ends leaves booked in the source's RPM and TPM windows, with its slot
 * given back. The soak at the end mixes them under concurrency.
 */
import { InMemoryGovernor } from '@pgw/backend-memory';
import { createRedisConnection, RedisGovernor } from '@pgw/backend-redis';
import type { Governor, SourceStats } from '@pgw/core';
import type { SourceScript } from '@pgw/mock-upstream';
import { startPrivateRedis } from '@pgw/testkit';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CircuitOpenError, EmbeddingClient, GatewayClient, gatewaySettings, OcrClient } from '../src/index.js';
import { MockFixture, REDIS_URL, scopeKeys, throwingModel, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();
const redis = createRedisConnection(REDIS_URL);
afterAll(() => redis.quit());

const EST = 700;
const HI = [{ role: 'user' as const, content: 'hi' }];
const PAGE = new Uint8Array([1, 2, 3]);
const LIMITS = { rpm: 0, tpm: 100_000, maxConcurrency: 4 };
const POLICY = { failureThreshold: 5, failureRate: 1, windowMs: 60_000, minSamples: 100, cooldownMs: 60_000, maxCooldownMs: 60_000, probeTtlMs: 30_000 };

const GOVERNORS = [
  { name: 'InMemoryGovernor', build: (scope: string, source: string): Governor => new InMemoryGovernor(options(scope, source)) },
  { name: 'RedisGovernor', build: (scope: string, source: string): Governor => new RedisGovernor({ ...options(scope, source), redis }) },
] as const;

function options(scope: string, source: string) {
  return { scope, sources: { [source]: LIMITS }, global: { rpm: 0, tpm: 0, maxConcurrency: 0 }, leaseTtlMs: 600_000, policy: POLICY };
}

interface Governed {
  readonly scope: string;
  readonly source: string;
  readonly governor: Governor;
  /** The source's env keys and the scope's, MAX_ATTEMPTS 1 unless `keys` says otherwise. */
  env(keys?: Record<string, string>, ocr?: boolean): Record<string, string>;
}

/** Runs `use` on a fresh scope and source governed by `backend`, then waits until every lease is back and reads the books. */
async function booked(script: SourceScript, backend: (typeof GOVERNORS)[number], use: (governed: Governed) => Promise<unknown>): Promise<SourceStats> {
  const scope = uniqueScope('settle');
  const source = fixture.source('settle', script);
  const governor = backend.build(scope, source);
  const env = (keys: Record<string, string> = {}, ocr = false) => ({
    PGW_CACHE_BACKEND: 'none',
    ...fixture.sourceKeys(scope, source, { EST_TOKENS: String(EST) }, ocr),
    ...scopeKeys(scope, { MAX_ATTEMPTS: '1', ...keys }),
  });
  try {
    await use({ scope, source, governor, env });
    await vi.waitFor(async () => expect((await governor.sourceStats(source)).inflight).toBe(0), { timeout: 10_000, interval: 20 });
    return await governor.sourceStats(source);
  } finally {
    await governor.close?.(); // injected parts are the caller's to close (Redis: the fleet line's subscriber)
  }
}

/** `call`'s value or failure, its signal aborted once the request reached `source` when `cancelInFlight`. */
async function cancelledOnceInFlight(source: string, cancelInFlight: boolean, call: (signal: AbortSignal) => Promise<unknown>): Promise<unknown> {
  const controller = new AbortController();
  const outcome = call(controller.signal).catch((error: unknown) => error);
  if (cancelInFlight) {
    await fixture.inflight(source);
    controller.abort();
  }
  return outcome;
}

/** One chat call (cancelled once the request reached the mock, when asked). */
async function settled(script: SourceScript, backend: (typeof GOVERNORS)[number], cancelInFlight = false): Promise<SourceStats> {
  return booked(script, backend, async ({ scope, source, governor, env }) => {
    const client = await GatewayClient.fromEnv(scope, { env: env(), governor, warn: () => {} });
    try {
      await cancelledOnceInFlight(source, cancelInFlight, (signal) => client.chat(HI, { signal }));
    } finally {
      await client.close();
    }
  });
}

describe.each(GOVERNORS)('settlement through the client on $name', (backend) => {
  it('S4: a success is charged the usage the upstream measured', async () => {
    const stats = await settled({ usage: { prompt_tokens: 30, completion_tokens: 12 } }, backend);
    expect(stats).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 42 });
  });

  it('S4: a measured 0 is charged 0, never the estimate', async () => {
    expect(await settled({ usage: { prompt_tokens: 0, completion_tokens: 0 } }, backend)).toMatchObject({ tpmUsed: 0 });
  });

  it('S3: a call cancelled in flight keeps its estimate', async () => {
    expect(await settled({ otherwise: { kind: 'hang' } }, backend, true)).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: EST });
  });

  it('S5: a transient failure keeps its estimate; a dead source and a rejected request settle 0', async () => {
    expect(await settled({ otherwise: { kind: 'status', status: 503 } }, backend)).toMatchObject({ tpmUsed: EST });
    expect(await settled({ otherwise: { kind: 'status', status: 401 } }, backend)).toMatchObject({ tpmUsed: 0 });
    expect(await settled({ otherwise: { kind: 'status', status: 400 } }, backend)).toMatchObject({ tpmUsed: 0 });
  });
});

describe.each(GOVERNORS)('the rest of the matrix through the clients on $name', (backend) => {
  it('S1: a breaker refusal takes no permit and sends nothing', async () => {
    let sent = 0;
    const stats = await booked({ otherwise: { kind: 'status', status: 401 } }, backend, async ({ scope, source, governor, env }) => {
      const client = await GatewayClient.fromEnv(scope, { env: env({ CIRCUIT_OPEN: 'fail_fast' }), governor, warn: () => {} });
      try {
        await expect(client.chat(HI)).rejects.toThrow(); // a dead source: the breaker opens
        await expect(client.chat(HI)).rejects.toBeInstanceOf(CircuitOpenError);
        sent = fixture.mock.counters(source).chat;
      } finally {
        await client.close();
      }
    });
    expect(sent).toBe(1);
    expect(stats).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 0 });
  });

  it('S2: a call cancelled during its backoff wait holds no permit; the failed attempt kept its estimate', async () => {
    const stats = await booked({ otherwise: { kind: 'status', status: 503, retryAfter: '60' } }, backend, async ({ scope, governor, env }) => {
      let waiting!: () => void;
      const backoff = new Promise<void>((resolve) => (waiting = resolve));
      const client = await GatewayClient.fromEnv(scope, {
        env: env({ MAX_ATTEMPTS: '2' }),
        governor,
        subscribers: [{ onRetryScheduled: () => waiting() }],
        warn: () => {},
      });
      try {
        const controller = new AbortController();
        const call = client.chat(HI, { signal: controller.signal });
        await backoff;
        controller.abort();
        await expect(call).rejects.toMatchObject({ name: 'AbortError' });
      } finally {
        await client.close();
      }
    });
    expect(stats).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: EST });
  });

  it('S6: OCR reserves its estimate and settles 0, on success and cancelled in flight', async () => {
    const ocr = async (script: SourceScript, cancelInFlight: boolean) =>
      booked(script, backend, async ({ scope, source, governor, env }) => {
        const client = await OcrClient.fromEnv(scope, { env: env({}, true), governor, warn: () => {} });
        try {
          await cancelledOnceInFlight(source, cancelInFlight, (signal) => client.recognizeText(PAGE, { signal }));
        } finally {
          await client.close();
        }
      });
    expect(await ocr({ ocrText: 'text' }, false)).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 0 });
    expect(await ocr({ otherwise: { kind: 'hang' } }, true)).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 0 });
  });

  it('S7: an embedding is charged its measured usage, and keeps its estimate cancelled in flight', async () => {
    const embed = async (script: SourceScript, cancelInFlight: boolean) => {
      let measured: number | undefined;
      const stats = await booked(script, backend, async ({ scope, source, governor, env }) => {
        const client = await EmbeddingClient.fromEnv(scope, { env: env(), governor, warn: () => {} });
        try {
          const response = await cancelledOnceInFlight(source, cancelInFlight, (signal) => client.embed(['one text', 'another'], { signal }));
          if (!(response instanceof Error)) {
            const { usage } = response as { usage: { promptTokens: number; completionTokens: number } };
            measured = usage.promptTokens + usage.completionTokens;
          }
        } finally {
          await client.close();
        }
      });
      return { stats, measured };
    };
    const ok = await embed({ embeddingDim: 4 }, false);
    expect(ok.measured).toBeGreaterThan(0);
    expect(ok.stats).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: ok.measured });
    expect((await embed({ otherwise: { kind: 'hang' } }, true)).stats).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: EST });
  });

  it('S8: an unclassified exception escaping the model settles 0 and propagates unchanged', async () => {
    const bug = new TypeError('a bug in the model');
    const model = throwingModel(bug);
    const scope = uniqueScope('settle');
    const governor = backend.build(scope, 'a');
    try {
      const settings = gatewaySettings({ scope, sources: [{ name: 'a', model, estTokens: EST }], retry: { maxAttempts: 1 } });
      const client = await GatewayClient.fromSettings(settings, { governor, warn: () => {} });
      try {
        await expect(client.chat(HI)).rejects.toBe(bug);
      } finally {
        await client.close();
      }
      expect(await governor.sourceStats('a')).toEqual({ inflight: 0, rpmUsed: 1, tpmUsed: 0 });
    } finally {
      await governor.close?.();
    }
  });
});

describe('S1 on RedisGovernor: a call cancelled while its admission is in flight', () => {
  it('ends at once; the lease granted after it is finished with 0 and sent nowhere', async () => {
    // A Redis of this test's own, frozen (SIGSTOP) while the admission waits for it.
    const server = await startPrivateRedis();
    const own = createRedisConnection(server.url);
    const scope = uniqueScope('settle');
    const source = fixture.source('settle', { usage: { prompt_tokens: 3, completion_tokens: 2 } });
    const redisGovernor = new RedisGovernor({ ...options(scope, source), redis: own });
    let admitting: (() => void) | undefined;
    // The governor users run, told when an admission has been sent.
    const governor: Governor = {
      admit: (...args) => {
        const answer = redisGovernor.admit(...args);
        admitting?.();
        return answer;
      },
      sourceStats: (name) => redisGovernor.sourceStats(name),
      onRoomFreed: (listener) => redisGovernor.onRoomFreed(listener),
      leaveLine: (turn) => redisGovernor.leaveLine(turn),
    };
    try {
      const env = { PGW_CACHE_BACKEND: 'none', ...fixture.sourceKeys(scope, source, { EST_TOKENS: String(EST) }), ...scopeKeys(scope, { MAX_ATTEMPTS: '1' }) };
      const client = await GatewayClient.fromEnv(scope, { env, governor, warn: () => {} });
      try {
        await client.chat(HI); // connected, scripts loaded, epoch known: 5 tokens booked
        server.child.kill('SIGSTOP');
        const sent = new Promise<void>((resolve) => (admitting = resolve));
        const controller = new AbortController();
        const call = client.chat(HI, { signal: controller.signal });
        await sent;
        controller.abort();
        await expect(call).rejects.toMatchObject({ name: 'AbortError' });
        server.child.kill('SIGCONT');
        const books = { inflight: 0, rpmUsed: 2, tpmUsed: 5 };
        await vi.waitFor(async () => expect(await redisGovernor.sourceStats(source)).toEqual(books), { timeout: 10_000, interval: 20 });
        expect(fixture.mock.counters(source).chat).toBe(1);
      } finally {
        await client.close();
      }
    } finally {
      server.child.kill('SIGCONT');
      await redisGovernor.close();
      own.disconnect();
      await server.stop();
    }
  });
});
