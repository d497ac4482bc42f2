/** Streams written byte by byte by a bare server: a leading byte order mark, a whole answer in one packet. */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiCompatible } from '../src/index.js';
import { attemptContext } from './helpers.js';
import { chunkJson } from './spec-fixtures.js';

const chunk = (content: string) => `data: ${chunkJson({ content })}\n\n`;

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    if (request.url?.startsWith('/burst/')) {
      response.end(`${chunk('one')}${chunk(' two')}${chunk(' three')}${chunk(' four')}data: [DONE]\n\n`);
      return;
    }
    const body = Buffer.from(`\uFEFF${chunk('first')}${chunk(' second')}data: [DONE]\n\n`);
    // The mark split across two packets: its bytes only make a character together.
    response.write(body.subarray(0, 2));
    setImmediate(() => response.end(body.subarray(2)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

describe('a stream that opens with a byte order mark', () => {
  it('keeps its first event', async () => {
    const model = openaiCompatible({ baseUrl: `${baseUrl}/bom/v1`, apiKey: 'k', model: 'm' });
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

describe('a whole answer in one packet', () => {
  it('forwards no delta after the caller aborted, even from the same packet', async () => {
    const model = openaiCompatible({ baseUrl: `${baseUrl}/burst/v1`, apiKey: 'k', model: 'm' });
    try {
      const caller = new AbortController();
      const ctx = attemptContext(caller.signal);
      ctx.onDelta = (delta) => {
        ctx.deltas.push(delta);
        if (ctx.deltas.length === 2) caller.abort(new Error('enough'));
      };
      await expect(model.stream({ messages: [{ role: 'user', content: 'hi' }], sampling: {} }, ctx)).rejects.toMatchObject({ name: 'AbortError' });
      expect(ctx.deltas).toEqual([{ content: 'one' }, { content: ' two' }]);
    } finally {
      await model.close();
    }
  });
});
