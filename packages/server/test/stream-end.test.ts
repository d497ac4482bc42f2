import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

const run = promisify(execFile);
const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');

describe('how a stream ends', () => {
  let h: Harness;
  const ends: string[] = [];
  beforeAll(async () => {
    h = await startHarness(undefined, {}, [{ onCallEnd: (event) => ends.push(event.status) }]);
  });
  afterAll(() => h.close());

  it('is raw SSE for curl: chunks, a usage chunk, then [DONE]', async () => {
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    const { stdout } = await run('curl', ['-sS', '-N', '-D', '-', '-H', 'content-type: application/json', '-d', body, `${h.url}/v1/chat/completions`]);
    expect(stdout).toMatch(/^HTTP\/1\.1 200/);
    expect(stdout).toMatch(/content-type: text\/event-stream/i);
    expect(stdout).toMatch(/x-pgw-call-id: \S+/i);
    expect(stdout).toMatch(/x-pgw-source: main/i);
    const events = stdout.split('\r\n\r\n')[1]!.split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    const usage = JSON.parse(events.at(-2)!.slice('data: '.length)) as { choices: unknown[]; usage: { total_tokens: number } };
    expect(usage.choices).toEqual([]);
    expect(usage.usage.total_tokens).toBeGreaterThan(0);
  });

  it('ends with an error event, never [DONE], when the upstream fails mid-stream', async () => {
    h.mock.setSource('main', { steps: [{ kind: 'truncate', afterTokens: 2 }] });
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const { stdout } = await run('curl', ['-sS', '-N', '-H', 'content-type: application/json', '-d', body, `${h.url}/v1/chat/completions`]);
    const events = stdout.split('\n\n').filter(Boolean);
    expect(events.join('\n')).not.toContain('[DONE]');
    expect(JSON.parse(events.at(-1)!.slice('data: '.length))).toMatchObject({ error: { type: expect.any(String) } });
    // The SDK turns that event into an APIError.
    h.mock.setSource('main', { steps: [{ kind: 'truncate', afterTokens: 2 }] });
    const stream = await h.openai().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const read = async () => {
      for await (const _chunk of stream) void _chunk;
    };
    await expect(read()).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  it('aborts the upstream call when the client goes away mid-stream', async () => {
    h.mock.setSource('main', { content: words, interTokenMs: 100 });
    const controller = new AbortController();
    const stream = await h.openai().chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true },
      { signal: controller.signal },
    );
    let chunks = 0;
    // The SDK ends its iteration quietly on its own abort.
    for await (const _chunk of stream) if (++chunks === 2) controller.abort();
    expect(chunks).toBe(2);
    // The upstream saw its request cancelled long before its 4 s answer was over, and the call settled as cancelled.
    await vi.waitFor(() => expect(h.mock.counters('main').inflight).toBe(0), { timeout: 2_000 });
    await vi.waitFor(() => expect(ends.at(-1)).toBe('cancelled'));
    expect(h.server.inflight).toBe(0);
  });

  it('aborts a whole-answer call whose client goes away while the upstream is silent', async () => {
    h.mock.setSource('main', { steps: [{ kind: 'hang' }] });
    const controller = new AbortController();
    const asked = h.openai().chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal });
    await vi.waitFor(() => expect(h.mock.counters('main').inflight).toBe(1));
    controller.abort();
    await expect(asked).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
    await vi.waitFor(() => expect(h.mock.counters('main').inflight).toBe(0), { timeout: 2_000 });
    await vi.waitFor(() => expect(ends.at(-1)).toBe('cancelled'));
    await vi.waitFor(() => expect(h.server.inflight).toBe(0));
  });

  it('answers a stream that fails before its first token with the HTTP status and Retry-After', async () => {
    h.mock.setSource('main', { otherwise: { kind: 'status', status: 500 } });
    const error = await h
      .openai()
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).status).toBe(503);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
