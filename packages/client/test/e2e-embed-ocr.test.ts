/** Embedding and OCR end to end: fromEnv against the loopback mock, on memory and on Redis backends. */
import { describe, expect, it, vi } from 'vitest';
import { CallDeadlineExceeded, EmbeddingClient, GatewayUnavailableError, OcrClient, ResultInvalidError } from '../src/index.js';
import { BACKENDS, MockFixture, outcome, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

const FAST_RETRY = { RETRY__BACKOFF_BASE_S: '0.01', RETRY__BACKOFF_MAX_S: '0.05' };
/** An OCR source with room for one attempt's reservation (EST_TOKENS), not two: OCR reserves it at admission and settles 0 (S6). */
const NARROW_TPM = { TPM: '1000', EST_TOKENS: '600' };

describe.each(BACKENDS)('embedding and OCR through fromEnv on $name backends', (backend) => {
  async function withEmbedder<T>(
    sources: Array<[string, Record<string, string>]>,
    keys: Record<string, string>,
    run: (client: EmbeddingClient) => Promise<T>,
  ): Promise<T> {
    const scope = uniqueScope('embed');
    const env = { ...backend.env, ...scopeKeys(scope, { ...FAST_RETRY, ...keys }) };
    for (const [name, fields] of sources) Object.assign(env, fixture.sourceKeys(scope, name, fields));
    const client = await EmbeddingClient.fromEnv(scope, { env, warn: () => {} });
    try {
      return await run(client);
    } finally {
      await client.close();
    }
  }

  async function withOcr<T>(
    sources: Array<[string, Record<string, string>]>,
    keys: Record<string, string>,
    run: (client: OcrClient) => Promise<T>,
  ): Promise<T> {
    const scope = uniqueScope('ocr');
    const env = { ...backend.env, ...scopeKeys(scope, { ...FAST_RETRY, ...keys }) };
    for (const [name, fields] of sources) Object.assign(env, fixture.sourceKeys(scope, name, fields, true));
    const client = await OcrClient.fromEnv(scope, { env, warn: () => {} });
    try {
      return await run(client);
    } finally {
      await client.close();
    }
  }

  it('embeds in serial batches of BATCH_SIZE, normalised, in input order', async () => {
    const embedder = fixture.source('embedder', { embeddingDim: 4 });
    await withEmbedder([[embedder, {}]], { BATCH_SIZE: '2', NORMALIZE: 'true', EXPECTED_DIM: '4' }, async (client) => {
      const response = await client.embed(['a', 'b', 'c']);
      expect(response.vectors).toHaveLength(3);
      for (const vector of response.vectors) expect(Math.hypot(...vector)).toBeCloseTo(1, 10);
      expect(response.sources).toEqual([embedder, embedder]);
      expect(response.callStats.attempts).toBe(2);
      const inputs = fixture.mock.requests(embedder).map((r) => (r.body as { input: string[] }).input);
      expect(inputs).toEqual([['a', 'b'], ['c']]);
    });
  });

  it('a vector of the wrong dimension is ResultInvalidError', async () => {
    const embedder = fixture.source('embedder', { embeddingDim: 8 });
    await withEmbedder([[embedder, {}]], { EXPECTED_DIM: '4' }, async (client) => {
      await expect(client.embed(['a'])).rejects.toBeInstanceOf(ResultInvalidError);
    });
  });

  it('no texts: returns at once with zero attempts and no request', async () => {
    const embedder = fixture.source('embedder');
    await withEmbedder([[embedder, {}]], {}, async (client) => {
      const response = await client.embed([]);
      expect(response).toMatchObject({ vectors: [], callStats: { attempts: 0 } });
      expect(fixture.mock.counters(embedder).total).toBe(0);
    });
  });

  it('one deadline covers all batches of a call (never one per batch)', async () => {
    const slow = fixture.source('slow', { latencyMs: 150 });
    await withEmbedder([[slow, {}]], { BATCH_SIZE: '1', CALL_DEADLINE_S: '0.5' }, async (client) => {
      const result = await outcome(() => client.embed(['1', '2', '3', '4', '5', '6', '7', '8']));
      expect(result.error).toBeInstanceOf(CallDeadlineExceeded);
      const sent = fixture.mock.counters(slow).embeddings;
      expect(sent).toBeGreaterThanOrEqual(2);
      expect(sent).toBeLessThan(8);
    });
  });

  it('embedding fails over from a dead source', async () => {
    const dead = fixture.source('dead', { otherwise: { kind: 'status', status: 401 } });
    const alive = fixture.source('alive');
    await withEmbedder([[dead, {}], [alive, {}]], { SELECTOR: 'ordered', SOURCES: `${dead},${alive}` }, async (client) => {
      const response = await client.embed(['x']);
      expect(response.sources).toEqual([alive]);
      expect(response.callStats.sourcesTried).toEqual([dead, alive]);
    });
  });

  it('recognizes text, parses layout and checks health', async () => {
    const ocr = fixture.source('ocr', { ocrText: 'Lorem ipsum' });
    await withOcr([[ocr, {}]], {}, async (client) => {
      const text = await client.recognizeText(new Uint8Array([1, 2, 3]));
      expect(text).toMatchObject({ text: 'Lorem ipsum', source: ocr, callStats: { attempts: 1, sourcesTried: [ocr] } });
      expect(text.callStats.totalLatencyMs).toBeGreaterThanOrEqual(0);
      const layout = await client.parseLayout(new Uint8Array([4]), { fileName: 'page.png' });
      expect(layout.source).toBe(ocr);
      expect(layout.callStats).toMatchObject({ attempts: 1, sourcesTried: [ocr] });
      expect(layout.callStats.logicalCallId).not.toBe(text.callStats.logicalCallId);
      expect(typeof layout.markdown).toBe('string');
      expect(Array.isArray(layout.elements)).toBe(true);
      await expect(client.checkHealth()).resolves.toEqual({ [ocr]: true });
    });
  });

  it('OCR fails over from a 500-ing server, and health reports it', async () => {
    const down = fixture.source('down', { otherwise: { kind: 'status', status: 503 }, healthy: false });
    const up = fixture.source('up');
    await withOcr([[down, {}], [up, {}]], { SELECTOR: 'ordered', SOURCES: `${down},${up}` }, async (client) => {
      await expect(client.recognizeText(new Uint8Array([1]))).resolves.toMatchObject({
        source: up,
        callStats: { attempts: 2, sourcesTried: [down, up] },
      });
      await expect(client.checkHealth()).resolves.toEqual({ [down]: false, [up]: true });
    });
  });

  it('OCR settles 0 tokens: a TPM that fits one estimate admits call after call', async () => {
    const ocr = fixture.source('ocr');
    await withOcr([[ocr, NARROW_TPM]], { QUOTA_FULL: 'fail_fast' }, async (client) => {
      for (let i = 0; i < 3; i += 1) await expect(client.recognizeText(new Uint8Array([i + 1]))).resolves.toMatchObject({ source: ocr });
    });
  });

  it('an OCR call in flight holds its EST_TOKENS: the calls that would exceed TPM fail fast and never reach the server', async () => {
    const ocr = fixture.source('ocr', { steps: [{ kind: 'hang' }] });
    await withOcr([[ocr, NARROW_TPM]], { QUOTA_FULL: 'fail_fast' }, async (client) => {
      const controller = new AbortController();
      const first = outcome(() => client.recognizeText(new Uint8Array([1]), { signal: controller.signal }));
      try {
        await fixture.inflight(ocr);
        const others = await Promise.all([2, 3].map((byte) => outcome(() => client.recognizeText(new Uint8Array([byte])))));
        expect(others.map(({ error }) => (error as GatewayUnavailableError | undefined)?.reason)).toEqual(['quota_full', 'quota_full']);
        expect(others[0]?.error).toBeInstanceOf(GatewayUnavailableError);
        expect(fixture.mock.counters(ocr).ocrText).toBe(1);
      } finally {
        controller.abort();
      }
      expect((await first).error).toMatchObject({ name: 'AbortError' });
    });
  });

  it('an OCR call cancelled in flight settles 0: its reservation is given back and the next call is admitted', async () => {
    const ocr = fixture.source('ocr', { steps: [{ kind: 'hang' }], ocrText: 'after' });
    await withOcr([[ocr, NARROW_TPM]], { QUOTA_FULL: 'fail_fast' }, async (client) => {
      const controller = new AbortController();
      const cancelled = outcome(() => client.recognizeText(new Uint8Array([1]), { signal: controller.signal }));
      await fixture.inflight(ocr);
      controller.abort();
      expect((await cancelled).error).toMatchObject({ name: 'AbortError' });
      // Settled at the estimate, the window would refuse every call for a minute; settled 0, one soon fits.
      const next = await vi.waitFor(() => client.recognizeText(new Uint8Array([2])), { timeout: 10_000, interval: 50 });
      expect(next).toMatchObject({ text: 'after', source: ocr });
      expect(fixture.mock.counters(ocr).ocrText).toBe(2);
    });
  });

  it('a failed OCR attempt settles 0: the retry on the same source fits beside it', async () => {
    const ocr = fixture.source('ocr', { steps: [{ kind: 'status', status: 503 }], ocrText: 'second try' });
    await withOcr([[ocr, NARROW_TPM]], { QUOTA_FULL: 'fail_fast' }, async (client) => {
      await expect(client.recognizeText(new Uint8Array([1]))).resolves.toMatchObject({ text: 'second try', callStats: { attempts: 2 } });
    });
  });
});
