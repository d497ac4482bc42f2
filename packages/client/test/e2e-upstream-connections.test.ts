/**
 * The HTTP agent holds no call back: as many calls as the governance admits are at the upstream at
 * once. A hidden bound on the connections per origin (it was 64) made the 65th call wait in undici's
 * queue, unseen by the governance: with 512 callers of an upstream answering in 1 s the door served
 * 51 requests/s at a p50 of 3.4 s (bench/profiles.md), and a call that waited there spent its
 * attempt timeout without being sent.
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryRecorder } from '@pgw/core';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../src/index.js';

const ANSWER = JSON.stringify({
  id: 'c',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
const CALLS = 100;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('the upstream connections of a client', () => {
  it(`has all ${CALLS} admitted calls at the upstream at once`, async () => {
    // The upstream answers nobody until every call has arrived: a bound below CALLS never gets there.
    const held: ServerResponse[] = [];
    let allArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (allArrived = resolve));
    const upstream = createServer((request, response) => {
      request.resume();
      held.push(response);
      if (held.length === CALLS) allArrived();
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    closers.push(async () => {
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    });
    const baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
    const env = {
      PGW_CACHE_BACKEND: 'none',
      CONNECTIONS__SOURCE__MAIN__BASE_URL: baseUrl,
      CONNECTIONS__SOURCE__MAIN__MODEL: 'm',
      CONNECTIONS__SOURCE__MAIN__STREAM: 'false',
    };
    const client = await GatewayClient.fromEnv('CONNECTIONS', { env, recorder: new MemoryRecorder() });
    closers.push(() => client.close());
    const calls = Array.from({ length: CALLS }, () => client.chat([{ role: 'user', content: 'hi' }]));
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), 10_000)));
    try {
      const outcome = await Promise.race([arrived.then(() => 'all arrived' as const), stuck]);
      expect({ outcome, atTheUpstream: held.length }).toEqual({ outcome: 'all arrived', atTheUpstream: CALLS });
    } finally {
      clearTimeout(timer);
      for (const response of held) response.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER);
    }
    const answers = await Promise.all(calls);
    expect(answers.every((answer) => answer.content === 'hi')).toBe(true);
  }, 30_000);
});
