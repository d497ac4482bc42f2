/**
 * A streamed chat completion as Server-Sent Events. The status line waits for the first delta, so a
 * call that fails before any token (quota full, breakers open, deadline) still gets its HTTP status
 * and `Retry-After`; after that a failure ends the stream with an `error` event — never `[DONE]`.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { ChatDelta, GatewayClient } from '@pgw/client';
import type { FastifyReply } from 'fastify';
import { withStreamContext, type StreamCallContext } from './call-context.js';
import type { ChatCall } from './chat-request.js';
import { ChunkWriter } from './chat-response.js';
import { errorBody, httpFailure } from './http-errors.js';

export async function streamChat(client: GatewayClient, call: ChatCall, reply: FastifyReply): Promise<void> {
  const { structured: _never, ...options } = call.options;
  const context: StreamCallContext = {};
  const stream = withStreamContext(context, () => client.chatStream(call.messages, options));
  const deltas = stream[Symbol.asyncIterator]();
  // Before the first delta nothing is sent: an error here takes the ordinary error path (status + Retry-After).
  const first = await deltas.next();

  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-pgw-call-id': context.callId ?? '',
    'x-pgw-source': context.source ?? '',
  });
  const chunks = new ChunkWriter(context.callId ?? '', call.model);
  try {
    if (!first.done) await write(response, chunks.delta(first.value));
    for (let next = await deltas.next(); !next.done; next = await deltas.next()) await write(response, chunks.delta(next.value as ChatDelta));
    const answer = await stream.response;
    await write(response, chunks.finish(answer));
    if (call.includeUsage) await write(response, chunks.usage(answer.usage));
    response.end('data: [DONE]\n\n');
  } catch (error) {
    await deltas.return?.();
    if (response.destroyed) return;
    response.end(`data: ${JSON.stringify(errorBody(httpFailure(error)))}\n\n`);
  }
}

/** Honours the socket's backpressure; a client that went away ends the wait (its call is aborted by then). */
async function write(response: ServerResponse, text: string): Promise<void> {
  if (response.destroyed) throw new Error('the HTTP client disconnected');
  if (response.write(text)) return;
  const done = new AbortController();
  try {
    await Promise.race([once(response, 'drain', { signal: done.signal }), once(response, 'close', { signal: done.signal })]);
  } finally {
    done.abort();
  }
}
