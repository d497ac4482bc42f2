import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../src/index.js';
import { chatBody, jsonBody, postJson } from './helpers.js';

let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream({ script: { sources: { scripted: {} } } });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const chatUrl = (query = '') => `${mock.baseUrl('scripted')}/chat/completions${query}`;

/** The SSE events of a body as [event type, data]. */
function sseEvents(body: string): Array<[string, string]> {
  return body
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => {
      const lines = block.split('\n');
      const type = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length) ?? 'message';
      return [type, lines.find((line) => line.startsWith('data: '))!.slice('data: '.length)];
    });
}

describe('in-band errors', () => {
  it('a stream sends afterTokens chunks, then the error as a data: payload, then [DONE]', async () => {
    mock.setSource('scripted', { content: 'one two three', steps: [{ kind: 'in_band_error', afterTokens: 2, error: { type: 'rate_limit_error', code: 429 } }] });
    const res = await postJson(chatUrl(), chatBody({ stream: true }));
    expect(res.status).toBe(200);
    const events = sseEvents(await res.text());
    expect(events).toHaveLength(4);
    expect(events.slice(0, 2).map(([, data]) => JSON.parse(data).choices[0].delta.content)).toEqual(['one ', 'two ']);
    expect(events[2]).toEqual(['message', JSON.stringify({ error: { message: 'mock in-band error', type: 'rate_limit_error', code: 429 } })]);
    expect(events[3]).toEqual(['message', '[DONE]']);
  });

  it("as: 'event' sends it as an SSE event: error (default: an invalid_request_error, no tokens first)", async () => {
    mock.setSource('scripted', { steps: [{ kind: 'in_band_error', as: 'event' }] });
    const events = sseEvents(await (await postJson(chatUrl(), chatBody({ stream: true }))).text());
    expect(events[0]).toEqual(['error', JSON.stringify({ error: { message: 'mock in-band error', type: 'invalid_request_error' } })]);
  });

  it('a JSON chat, an embeddings and an OCR text answer are a 200 JSON error body', async () => {
    mock.setSource('scripted', { otherwise: { kind: 'in_band_error', error: { status: 503, message: 'busy' } } });
    const chat = await postJson(chatUrl(), chatBody());
    expect(chat.status).toBe(200);
    expect(await jsonBody(chat)).toEqual({ error: { message: 'busy', type: 'invalid_request_error', status: 503 } });
    const embeddings = await postJson(`${mock.baseUrl('scripted')}/embeddings`, { input: ['a'] });
    expect(await jsonBody(embeddings)).toMatchObject({ error: { status: 503 } });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array([1])]), 'a.png');
    const ocr = await fetch(`${mock.url}/scripted/ocr/text`, { method: 'POST', body: form });
    expect(ocr.status).toBe(200);
    expect(await jsonBody(ocr)).toMatchObject({ error: { message: 'busy' } });
  });
});

describe('oversized bodies', () => {
  it('a JSON chat body of about mb MiB, chunked, still well-formed JSON', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'oversized', mb: 1.5 }] });
    const res = await postJson(chatUrl(), chatBody());
    expect(res.headers.get('content-length')).toBeNull();
    const text = await res.text();
    expect(text.length).toBe(Math.round(1.5 * 1024 * 1024));
    expect(JSON.parse(text).choices[0].message.content).toMatch(/^x+$/);
  });

  it('announces its size with contentLength', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'oversized', mb: 1, contentLength: true }] });
    const res = await postJson(`${mock.baseUrl('scripted')}/embeddings`, { input: ['a'] });
    expect(res.headers.get('content-length')).toBe(String(1024 * 1024));
    expect(JSON.parse(await res.text())).toMatchObject({ data: [] });
  });

  it('a stream of content chunks totalling at least mb MiB, then [DONE]', async () => {
    mock.setSource('scripted', { steps: [{ kind: 'oversized', mb: 1 }] });
    const text = await (await postJson(chatUrl(), chatBody({ stream: true }))).text();
    expect(text.length).toBeGreaterThanOrEqual(1024 * 1024);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('rejects a bad mb', async () => {
    expect(() => mock.setSource('scripted', { steps: [{ kind: 'oversized', mb: 0 }] })).toThrow(/steps\[0\]\.mb/);
    expect(() => mock.setSource('scripted', { steps: [{ kind: 'in_band_error', as: 'x' as 'data' }] })).toThrow(/steps\[0\]\.as/);
  });
});

describe('header and query recording', () => {
  it('records the URL query and every header of each request, per source', async () => {
    await postJson(chatUrl('?api-version=2024-10-21&tenant=a'), chatBody(), { 'x-route': 'blue', 'api-key': 'k' });
    const [recorded] = mock.requests('scripted');
    expect(recorded?.query).toEqual({ 'api-version': '2024-10-21', tenant: 'a' });
    expect(recorded?.headers).toMatchObject({ 'x-route': 'blue', 'api-key': 'k' });
    expect(recorded?.route).toBe('chat');
  });
});
