/**
 * What a request may carry: MAX_REQUEST_MB is checked before anything starts (no request, no row),
 * and lone surrogates reach the upstream as U+FFFD.
 */
import { describe, expect, it } from 'vitest';
import { MemoryRecorder } from '@pgw/core';
import { EmbeddingClient, GatewayClient, OcrClient } from '../src/index.js';
import { MockFixture, scopeKeys, uniqueScope } from './helpers/e2e.js';

const fixture = MockFixture.use();

const MiB = 1024 * 1024;

async function refusal(run: () => Promise<unknown>): Promise<RangeError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RangeError);
  return error as RangeError;
}

describe('MAX_REQUEST_MB', () => {
  it('refuses a chat over the bound before any request or row, naming the key and the argument', async () => {
    const scope = uniqueScope('big');
    const source = fixture.source('big');
    const recorder = new MemoryRecorder();
    const env = { ...fixture.sourceKeys(scope, source), ...scopeKeys(scope, { MAX_REQUEST_MB: '1' }) };
    const client = await GatewayClient.fromEnv(scope, { env, recorder, warn: () => {} });
    try {
      const big = [{ role: 'user' as const, content: 'x'.repeat(2 * MiB) }];
      for (const run of [() => client.chat(big), async () => client.chatStream(big).response]) {
        const error = await refusal(run);
        expect(error.message).toContain(`${scope}__MAX_REQUEST_MB`);
        expect(error.message).toMatch(/^chat(Stream)?\(messages\) is 2\.0 MiB; the bound is 1 MiB/);
      }
      // Multi-byte text counts in UTF-8 bytes: 400k three-byte characters exceed 1 MiB.
      await refusal(() => client.chat([{ role: 'user', content: '€'.repeat(400_000) }]));
      await expect(client.chat([{ role: 'user', content: 'x'.repeat(MiB / 2) }])).resolves.toMatchObject({ cached: false });
    } finally {
      await client.close();
    }
    expect(fixture.mock.counters(source).chat).toBe(1);
    expect(recorder.rows).toHaveLength(1);
  });

  it('defaults to 16 MiB', async () => {
    const scope = uniqueScope('big');
    const source = fixture.source('big');
    const client = await GatewayClient.fromEnv(scope, { env: fixture.sourceKeys(scope, source), warn: () => {} });
    try {
      const error = await refusal(() => client.chat([{ role: 'user', content: 'x'.repeat(16 * MiB + 1) }]));
      expect(error.message).toContain(`${scope}__MAX_REQUEST_MB`);
    } finally {
      await client.close();
    }
    expect(fixture.mock.counters(source).total).toBe(0);
  });

  it('bounds embedding texts and OCR images the same way', async () => {
    const embedScope = uniqueScope('big');
    const ocrScope = uniqueScope('big');
    const embedSource = fixture.source('big');
    const ocrSource = fixture.source('big');
    const embed = await EmbeddingClient.fromEnv(embedScope, {
      env: { ...fixture.sourceKeys(embedScope, embedSource), ...scopeKeys(embedScope, { MAX_REQUEST_MB: '0.5' }) },
      warn: () => {},
    });
    const ocr = await OcrClient.fromEnv(ocrScope, {
      env: { ...fixture.sourceKeys(ocrScope, ocrSource, {}, true), ...scopeKeys(ocrScope, { MAX_REQUEST_MB: '0.5' }) },
      warn: () => {},
    });
    try {
      const texts = Array.from({ length: 10 }, () => 'y'.repeat(MiB / 10));
      expect((await refusal(() => embed.embed(texts))).message).toContain(`embed(texts) is 1.0 MiB; the bound is 0.5 MiB (${embedScope}__MAX_REQUEST_MB)`);
      const image = new Uint8Array(MiB);
      expect((await refusal(() => ocr.recognizeText(image))).message).toContain(`recognizeText(image) is 1.0 MiB; the bound is 0.5 MiB (${ocrScope}__MAX_REQUEST_MB)`);
      expect((await refusal(() => ocr.parseLayout(image))).message).toContain(`${ocrScope}__MAX_REQUEST_MB`);
    } finally {
      await Promise.all([embed.close(), ocr.close()]);
    }
    expect(fixture.mock.counters(embedSource).total + fixture.mock.counters(ocrSource).total).toBe(0);
  });
});

describe('lone surrogates in a request', () => {
  it('reach the upstream as U+FFFD, in chat messages and in embedding texts', async () => {
    const chatScope = uniqueScope('utf');
    const embedScope = uniqueScope('utf');
    const chatSource = fixture.source('utf');
    const embedSource = fixture.source('utf', { embeddingDim: 4 });
    const chat = await GatewayClient.fromEnv(chatScope, { env: fixture.sourceKeys(chatScope, chatSource), warn: () => {} });
    const embed = await EmbeddingClient.fromEnv(embedScope, { env: fixture.sourceKeys(embedScope, embedSource), warn: () => {} });
    const messages = [{ role: 'user' as const, content: 'cut emoji \uD83D here' }];
    try {
      await chat.chat(messages);
      await embed.embed(['half \uDE80']);
    } finally {
      await Promise.all([chat.close(), embed.close()]);
    }
    const [chatRequest] = fixture.mock.requests(chatSource);
    expect((chatRequest!.body as { messages: Array<{ content: string }> }).messages[0]!.content).toBe('cut emoji \uFFFD here');
    const [embedRequest] = fixture.mock.requests(embedSource);
    expect((embedRequest!.body as { input: string[] }).input).toEqual(['half \uFFFD']);
    // The caller's own objects are left as they were.
    expect(messages[0]!.content).toBe('cut emoji \uD83D here');
  });
});
