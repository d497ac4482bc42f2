/**
 * A drain a load balancer can follow: for its grace the listener keeps answering — readiness 503,
 * new calls 503 with Retry-After in OpenAI's shape — while the calls in flight finish; a stream
 * still running when the grace ends gets its terminal `error` event before the socket closes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSocket, parseAnswer, post, rawRequest } from './raw-http.js';
import { startHarness, type Harness } from './helpers.js';

const hi = [{ role: 'user', content: 'hi' }];
const whole = JSON.stringify({ model: 'gpt-4o-mini', messages: hi });
const streamed = JSON.stringify({ model: 'gpt-4o-mini', messages: hi, stream: true });

describe('the drain', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('keeps answering through the grace: /readyz 503, new calls 503 + Retry-After, the call in flight finishes', async () => {
    h = await startHarness({ sources: { main: { latencyMs: 1_500 } } });
    const inFlight = rawRequest(h.url, post('/v1/chat/completions', whole));
    await vi.waitFor(() => expect(h!.mock.counters('main').inflight).toBe(1));
    const drained = h.server.drain(10_000);

    const ready = await fetch(`${h.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'draining' });
    const refused = await rawRequest(h.url, post('/v1/chat/completions', whole));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['connection']).toBe('close');
    expect(JSON.parse(refused.body)).toMatchObject({ error: { type: 'service_unavailable', code: 'draining' } });

    expect((await inFlight).status).toBe(200);
    await drained;
    // Once drained, the listener is closed.
    await expect(fetch(`${h.url}/healthz`)).rejects.toThrow();
  });

  it('ends a stream still running when the grace is over with an error event, not a reset', async () => {
    h = await startHarness({ sources: { main: { content: Array.from({ length: 200 }, (_, i) => `w${i}`).join(' '), interTokenMs: 50 } } });
    const socket = await openSocket(h.url);
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    let reset = false;
    socket.on('error', () => (reset = true));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(post('/v1/chat/completions', streamed));
    await vi.waitFor(() => expect(text).toContain('data: {'));
    await h.server.drain(300);
    await closed;
    expect(reset).toBe(false);
    const events = parseAnswer(text, true).body.split('\n\n').filter((event) => event.startsWith('data: '));
    expect(events.at(-1)).not.toContain('[DONE]');
    expect(JSON.parse(events.at(-1)!.slice('data: '.length))).toMatchObject({ error: { type: 'service_unavailable', code: 'draining' } });
  });
});
