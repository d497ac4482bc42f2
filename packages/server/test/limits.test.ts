/**
 * The bounds of the door in real time (docs/reliability.md): a request must arrive within its
 * timeout, connections are capped, a stream keeps its line alive with heartbeats and is ended when
 * its reader stops taking bytes. Bounds here are short; each wait allows several times the bound.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSocket, parseAnswer, post, rawRequest } from './raw-http.js';
import { startHarness, type Harness } from './helpers.js';

const streamed = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });

describe('the bounds of the door', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('answers a request whose body trickles past PGW_SERVER__REQUEST_TIMEOUT_S with a 408 in OpenAI’s shape, and closes it', async () => {
    h = await startHarness(undefined, { PGW_SERVER__REQUEST_TIMEOUT_S: '0.5' });
    const socket = await openSocket(h.url);
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.write('POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{');
    const started = performance.now();
    await once(socket, 'close');
    expect(performance.now() - started).toBeLessThan(5_000);
    const answer = parseAnswer(text, true);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'request_timeout', type: 'invalid_request_error' } });
  });

  it('closes a connection whose headers never end (the headers timeout)', async () => {
    h = await startHarness(undefined, { PGW_SERVER__HEADERS_TIMEOUT_S: '0.3' });
    const socket = await openSocket(h.url);
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: ');
    await once(socket, 'close');
    expect(parseAnswer(text, true).status).toBe(408);
  });

  it('does not cut a stream that outlasts the request timeout: the bound is on receiving the request', async () => {
    h = await startHarness({ sources: { main: { content: 'a b c d e f', interTokenMs: 150 } } }, { PGW_SERVER__REQUEST_TIMEOUT_S: '0.3' });
    const answer = await rawRequest(h.url, post('/v1/chat/completions', streamed, { connection: 'close' }), { untilClose: true, timeoutMs: 10_000 });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('[DONE]');
  });

  it('caps the connections at PGW_SERVER__MAX_CONNECTIONS', async () => {
    h = await startHarness(undefined, { PGW_SERVER__MAX_CONNECTIONS: '2' });
    const held = [await openSocket(h.url), await openSocket(h.url)];
    const third = await openSocket(h.url);
    await once(third, 'close');
    for (const socket of held) socket.destroy();
    // The cap is on open connections: once they are gone, a new one is served.
    await vi.waitFor(async () => expect((await fetch(`${h!.url}/healthz`)).status).toBe(200));
  });

  it('sends : keep-alive every PGW_SERVER__SSE_HEARTBEAT_S, also before the first token, and X-Accel-Buffering: no', async () => {
    h = await startHarness({ sources: { main: { content: 'late answer', ttftMs: 1_500 } } }, { PGW_SERVER__SSE_HEARTBEAT_S: '0.2' });
    const answer = await rawRequest(h.url, post('/v1/chat/completions', streamed, { connection: 'close' }), { untilClose: true });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-accel-buffering']).toBe('no');
    const beforeFirstToken = answer.body.slice(0, answer.body.indexOf('data: '));
    expect(beforeFirstToken.match(/: keep-alive\n\n/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(answer.body).toContain('[DONE]');
  });

  it('ends a stream whose reader takes nothing for PGW_SERVER__WRITE_STALL_S and cancels its call', async () => {
    const ends: string[] = [];
    // 8,000 deltas of 8 KiB, one a millisecond at most: the stall (the socket's buffers full, then
    // 0.3 s) comes within about 2 s, the whole answer takes 8 s or more to arrive.
    const content = Array.from({ length: 8_000 }, () => 'x'.repeat(8_192)).join(' ');
    h = await startHarness({ sources: { main: { content, interTokenMs: 1 } } }, { PGW_SERVER__WRITE_STALL_S: '0.3' }, [{ onCallEnd: (event) => ends.push(event.status) }]);
    const socket = await openSocket(h.url);
    socket.write(post('/v1/chat/completions', streamed));
    // Read the status line, then stop reading: the server's writes back up.
    await once(socket, 'data');
    socket.pause();
    await vi.waitFor(() => expect(ends).toEqual(['cancelled']), { timeout: 10_000 });
    expect(h.server.inflight).toBe(0);
    await vi.waitFor(() => expect(h!.mock.counters('main').inflight).toBe(0));
    socket.destroy();
  });
});
