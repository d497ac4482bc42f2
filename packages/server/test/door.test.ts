/**
 * The door as an attacker tries it (docs/reliability.md, the server's rows): no spelling of a path
 * gets around the key, nothing of an unrouted or unauthenticated body is read, the framework's own
 * errors and the server's faults answer in OpenAI's shape, and every answer carries its request id.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSocket, parseAnswer, post, rawRequest } from './raw-http.js';
import { startHarness, type Harness } from './helpers.js';
import { LINGER_BYTES, LINGER_MS } from '../src/door/refused-body.js';

const KEY = 'sk-team-a-0001';
const chat = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
const stringOrNull = expect.toSatisfy((value: unknown) => value === null || typeof value === 'string');
const openaiShape = { error: { message: expect.any(String), type: expect.any(String), param: stringOrNull, code: stringOrNull } };

describe('the key is checked on the route the router matched', () => {
  let h: Harness;
  const lines: string[] = [];
  beforeAll(async () => {
    h = await startHarness(undefined, { PGW_SERVER__KEYS: JSON.stringify({ [KEY]: 'team-a' }) }, [], {
      log: (line) => lines.push(line),
      beforeListen: (server) => {
        server.app.get('/v1/boom', { config: { protected: true } }, async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'secret internals')");
        });
      },
    });
  });
  afterAll(() => h.close());

  const targets = ['/v1/chat/completions', '/%761/chat/completions', '/v1/%63hat/completions', 'http://x/v1/chat/completions', '/v1/chat/completions?x=1'];

  it.each(targets)('%s without a key is a 401 in OpenAI’s shape; with the key it is served', async (target) => {
    const refused = await rawRequest(h.url, post(target, chat));
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'invalid_api_key', type: 'invalid_request_error' } });
    const served = await rawRequest(h.url, post(target, chat, { authorization: `Bearer ${KEY}` }));
    expect(served.status).toBe(200);
  });

  it('answers GET and HEAD / with 200 without a key: the probe clients send before their first call', async () => {
    expect(await rawRequest(h.url, 'GET / HTTP/1.1\r\nHost: localhost\r\n\r\n')).toMatchObject({ status: 200 });
    const head = await rawRequest(h.url, 'HEAD / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', { untilClose: true });
    expect(head).toMatchObject({ status: 200, body: '' });
  });

  it('takes the key from x-api-key too (the Anthropic clients send it there); Authorization wins when both are sent', async () => {
    expect((await rawRequest(h.url, post('/v1/chat/completions', chat, { 'x-api-key': KEY }))).status).toBe(200);
    const wrong = await rawRequest(h.url, post('/v1/chat/completions', chat, { 'x-api-key': 'sk-wrong-key-0000' }));
    expect(wrong.status).toBe(401);
    expect(wrong.body).not.toContain('sk-wrong-key-0000');
    expect((await rawRequest(h.url, post('/v1/chat/completions', chat, { authorization: 'Bearer sk-wrong-key-0000', 'x-api-key': KEY }))).status).toBe(401);
  });

  it('answers 404 and 401 before reading a byte of the body, then closes a connection whose body never comes within the lingering time', async () => {
    for (const [target, status] of [['/nope', 404], ['/v1/chat/completions', 401]] as const) {
      const socket = await openSocket(h.url);
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      // A 7 MB body is announced, 1 byte of it sent: the answer cannot wait for the rest.
      socket.write(`POST ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 7000000\r\n\r\n[`);
      const started = performance.now();
      while (!text.includes('\r\n\r\n')) await once(socket, 'data');
      const answer = parseAnswer(text, false);
      expect(answer.status).toBe(status);
      // Read and discarded while it comes (so the caller reads its answer, not a reset), never longer than the lingering time.
      await once(socket, 'close');
      expect(performance.now() - started).toBeGreaterThan(LINGER_MS / 2);
    }
  }, 4 * LINGER_MS + 10_000);

  it('reads and discards the rest of a refused body, so the caller finishes sending it and reads its answer, never a reset', async () => {
    const size = 6_000_000;
    for (const [target, status] of [['/nope', 404], ['/v1/responses', 401]] as const) {
      const socket = await openSocket(h.url);
      let text = '';
      const errors: string[] = [];
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('error', (error: Error & { code?: string }) => errors.push(error.code ?? error.message));
      socket.write(`POST ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`);
      while (!text.includes('\r\n\r\n')) await once(socket, 'data');
      expect(parseAnswer(text, false).status).toBe(status);
      // The whole body is sent after the answer came, as fetch does: a closed socket would refuse it.
      const chunk = Buffer.alloc(64 * 1024, 'A');
      for (let sent = 0; sent < size && errors.length === 0; sent += chunk.length) {
        if (!socket.write(chunk.subarray(0, Math.min(chunk.length, size - sent)))) await Promise.race([once(socket, 'drain'), once(socket, 'close')]);
      }
      // The connection still serves: the next request on it is answered.
      text = '';
      socket.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      while (errors.length === 0 && !socket.destroyed && !text.includes('\r\n\r\n')) await Promise.race([once(socket, 'data'), once(socket, 'close')]);
      expect(errors, target).toEqual([]);
      expect(parseAnswer(text, false).status, target).toBe(200);
      socket.destroy();
    }
  });

  it('answers a refused 6 MB body posted by fetch with its 404 or 401 (10 of 10), and closes at once a body announced past the bound', async () => {
    const body = JSON.stringify({ model: 'gpt-4o-mini', input: [{ role: 'user', content: [{ type: 'input_image', image_url: `data:image/png;base64,${'A'.repeat(6_000_000)}` }] }] });
    for (const [target, status] of [['/nope', 404], ['/v1/responses', 401]] as const) {
      const statuses: (number | string)[] = [];
      for (let attempt = 0; attempt < 10; attempt += 1) {
        const answer = await fetch(`${h.url}${target}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
          async (response) => (((await response.json()) as { error?: unknown }).error === undefined ? 'no error body' : response.status),
          (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
        );
        statuses.push(answer);
      }
      expect(statuses, target).toEqual(Array.from({ length: 10 }, () => status));
    }
    const past = await rawRequest(h.url, `POST /nope HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${LINGER_BYTES + 1}\r\n\r\n[`, { untilClose: true });
    expect(past).toMatchObject({ status: 404, closed: true, headers: { connection: 'close' } });
  }, 60_000);

  it('keeps /healthz answering while a large body is posted to an unknown route', async () => {
    const nested = `${'['.repeat(50_000)}${']'.repeat(50_000)}`.padEnd(7_000_000, ' ');
    const flood = rawRequest(h.url, post('/nope', nested));
    const health = await fetch(`${h.url}/healthz`);
    expect(health.status).toBe(200);
    expect((await flood).status).toBe(404);
  });

  it('answers the framework’s own errors in OpenAI’s shape: a bad URL, headers too large, a malformed request', async () => {
    const badUrl = await rawRequest(h.url, `GET /%zz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    expect(badUrl.status).toBe(400);
    expect(JSON.parse(badUrl.body)).toMatchObject(openaiShape);
    const huge = await rawRequest(h.url, `GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ${'a'.repeat(40_000)}\r\n\r\n`, { untilClose: true });
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toMatchObject(openaiShape);
    const garbage = await rawRequest(h.url, 'HELLO\r\n\r\n', { untilClose: true });
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body)).toMatchObject(openaiShape);
    const badJson = await rawRequest(h.url, post('/v1/chat/completions', '{"model":', { authorization: `Bearer ${KEY}` }));
    expect(badJson.status).toBe(400);
    expect(JSON.parse(badJson.body)).toMatchObject({ error: { code: 'invalid_json', param: 'body' } });
  });

  it('answers an unexpected exception with a 500 carrying no internal text; the detail goes to the log', async () => {
    const answer = await rawRequest(h.url, `GET /v1/boom HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${KEY}\r\nx-request-id: boom-1\r\n\r\n`);
    expect(answer.status).toBe(500);
    expect(answer.body).not.toContain('secret internals');
    expect(JSON.parse(answer.body)).toMatchObject({ error: { type: 'server_error', code: 'internal_error' } });
    const fault = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry['level'] === 'error' && entry['requestId'] === 'boom-1');
    expect(fault?.['message']).toContain('secret internals');
  });

  it('refuses a bad field with a 400 naming it, and only that is a 400', async () => {
    const bad = await rawRequest(h.url, post('/v1/chat/completions', JSON.stringify({ model: 'm', messages: [{ role: 'wizard', content: 'x' }] }), { authorization: `Bearer ${KEY}` }));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ error: { param: 'messages[0].role', type: 'invalid_request_error' } });
  });

  it('echoes a well-formed x-request-id, makes one for a malformed one, and logs one line per request without key or prompt', async () => {
    lines.length = 0;
    const kept = await rawRequest(h.url, post('/v1/chat/completions', chat, { authorization: `Bearer ${KEY}`, 'x-request-id': 'trace-42' }));
    expect(kept.headers['x-request-id']).toBe('trace-42');
    const made = await rawRequest(h.url, post('/v1/chat/completions', chat, { authorization: `Bearer ${KEY}`, 'x-request-id': 'x'.repeat(129) }));
    expect(made.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    const refused = await rawRequest(h.url, post('/v1/chat/completions', chat));
    expect(refused.headers['x-request-id']).toMatch(/^req_/);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries).toHaveLength(3);
    expect(entries[0]).toMatchObject({ requestId: 'trace-42', method: 'POST', route: '/v1/chat/completions', status: 200, tenant: 'team-a', callId: kept.headers['x-pgw-call-id'] });
    expect(entries[2]).toMatchObject({ status: 401, tenant: null, callId: null });
    expect(lines.join('\n')).not.toContain(KEY);
    expect(lines.join('\n')).not.toContain('"hi"');
  });
});

describe('a server without keys', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('answers only requests addressed to a loopback host (DNS rebinding)', async () => {
    const rebound = await rawRequest(h.url, post('/v1/chat/completions', chat, { host: 'attacker.example:8787' }));
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ error: { code: 'host_not_allowed' } });
    for (const host of ['localhost:8787', '127.0.0.1', '[::1]:8787', 'app.localhost']) {
      expect((await rawRequest(h.url, post('/v1/chat/completions', chat, { host }))).status).toBe(200);
    }
  });
});
