/**
 * An OCR source's TPM limit, end to end on memory and on Redis: every OCR attempt reserves the
 * source's EST_TOKENS at admission, so TPM bounds the OCR work in flight, and settles 0 tokens
 * however it ends (S6: a cancelled call too), so the reservation never outlives the attempt.
 */
import { describe, expect, it, vi } from 'vitest';
import { GatewayUnavailableError, OcrClient } from '../src/index.js';
import { BACKENDS, MockFixture, outcome, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

const IMAGE = new Uint8Array([1, 2, 3]);
/** Room for one estimate, not two. */
const NARROW = { TPM: '1000', EST_TOKENS: '600' };

describe.each(BACKENDS)('OCR under a TPM limit on $name backends', (backend) => {
  async function withOcr<T>(source: string, run: (client: OcrClient) => Promise<T>): Promise<T> {
    const scope = uniqueScope('ocrtpm');
    const env = { ...backend.env, ...scopeKeys(scope, { QUOTA_FULL: 'fail_fast' }), ...fixture.sourceKeys(scope, source, NARROW, true) };
    const client = await OcrClient.fromEnv(scope, { env, warn: () => {} });
    try {
      return await run(client);
    } finally {
      await client.close();
    }
  }

  it('a call in flight holds its estimate: the calls that would exceed TPM fail fast and never reach the server', async () => {
    const ocr = fixture.source('ocr', { steps: [{ kind: 'hang' }] });
    await withOcr(ocr, async (client) => {
      const controller = new AbortController();
      const first = outcome(() => client.recognizeText(IMAGE, { signal: controller.signal }));
      try {
        await fixture.inflight(ocr);
        const others = await Promise.all([0, 1].map(() => outcome(() => client.recognizeText(IMAGE))));
        expect(others.map(({ error }) => (error as GatewayUnavailableError | undefined)?.reason)).toEqual(['quota_full', 'quota_full']);
        expect(others[0]?.error).toBeInstanceOf(GatewayUnavailableError);
        expect(fixture.mock.counters(ocr).ocrText).toBe(1);
      } finally {
        controller.abort();
      }
      expect((await first).error).toMatchObject({ name: 'AbortError' });
    });
  });

  it('a call cancelled in flight settles 0: its reservation is given back and the next call is admitted', async () => {
    const ocr = fixture.source('ocr', { steps: [{ kind: 'hang' }], ocrText: 'after' });
    await withOcr(ocr, async (client) => {
      const controller = new AbortController();
      const cancelled = outcome(() => client.recognizeText(IMAGE, { signal: controller.signal }));
      await fixture.inflight(ocr);
      controller.abort();
      expect((await cancelled).error).toMatchObject({ name: 'AbortError' });
      // Settled at the estimate, the window would refuse every call for a minute; settled 0, one soon fits.
      const next = await vi.waitFor(() => client.recognizeText(IMAGE), { timeout: 10_000, interval: 50 });
      expect(next).toMatchObject({ text: 'after', source: ocr });
      expect(fixture.mock.counters(ocr).ocrText).toBe(2);
    });
  });

  it('a failed attempt settles 0: the retry on the same source fits beside it', async () => {
    const ocr = fixture.source('ocr', { steps: [{ kind: 'status', status: 503 }], ocrText: 'second try' });
    await withOcr(ocr, async (client) => {
      await expect(client.recognizeText(IMAGE)).resolves.toMatchObject({ text: 'second try', callStats: { attempts: 2 } });
    });
  });
});
