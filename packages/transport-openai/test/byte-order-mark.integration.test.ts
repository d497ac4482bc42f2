/** A stream may open with a UTF-8 byte order mark; the event-stream grammar ignores one. */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiCompatible } from '../src/index.js';
import { attemptContext } from './helpers.js';

const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const body = Buffer.from(`\uFEFF${chunk('first')}${chunk(' second')}data: [DONE]\n\n`);
    // The mark split across two packets: its bytes only make a character together.
    response.write(body.subarray(0, 2));
    setImmediate(() => response.end(body.subarray(2)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => {
  server.close();
});

describe('a stream that opens with a byte order mark', () => {
  it('keeps its first event', async () => {
    const model = openaiCompatible({ baseUrl, apiKey: 'k', model: 'm' });
    try {
      const ctx = attemptContext();
      const result = await model.stream({ messages: [{ role: 'user', content: 'hi' }], sampling: {} }, ctx);
      expect(result.content).toBe('first second');
      expect(ctx.deltas).toEqual([{ content: 'first' }, { content: ' second' }]);
    } finally {
      await model.close();
    }
  });
});
