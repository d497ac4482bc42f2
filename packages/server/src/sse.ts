/**
 * A streamed chat completion as Server-Sent Events. The status line waits for the first delta, so a
 * call that fails before any token (quota full, breakers open, deadline) still gets its HTTP status
 * and `Retry-After` — but no longer than one heartbeat: a call still waiting then (for admission, for
 * a slow first token) gets its 200 and a `: keep-alive` comment every heartbeat, so proxies with an
 * idle timeout keep the stream. After the status, a failure ends the stream with an `error` event,
 * never `[DONE]`. A reader that takes no bytes for the write-stall bound ends the stream and cancels
 * its call.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { ChatDelta, GatewayClient } from '@pgw/client';
import type { FastifyReply } from 'fastify';
import { withStreamContext, type StreamCallContext } from './call-context.js';
import type { ChatCall } from './chat-request.js';
import { ChunkWriter } from './chat-response.js';
import { errorBody, httpFailure } from './http-errors.js';
import { WriteStalledError } from './request-error.js';

export interface StreamLimits {
  heartbeatMs: number;
  writeStallMs: number;
}

const HEARTBEAT = ': keep-alive\n\n';

export async function streamChat(client: GatewayClient, call: ChatCall, reply: FastifyReply, controller: AbortController, limits: StreamLimits): Promise<void> {
  const { structured: _never, ...options } = call.options;
  const context: StreamCallContext = {};
  const stream = withStreamContext(context, () => client.chatStream(call.messages, options));
  const deltas = stream[Symbol.asyncIterator]();
  const first = deltas.next();
  // An error before the first delta, within one heartbeat, takes the ordinary error path (status + Retry-After).
  const early = await withinHeartbeat(first, limits.heartbeatMs);

  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    'x-pgw-call-id': context.callId ?? '',
    'x-pgw-source': context.source ?? '',
  });
  const writer = new StreamWriter(response, controller, limits.writeStallMs);
  const heartbeat = setInterval(() => writer.comment(HEARTBEAT), limits.heartbeatMs);
  const chunks = new ChunkWriter(context.callId ?? '', call.model);
  try {
    if (early === undefined) writer.comment(HEARTBEAT);
    for (let next = await first; !next.done; next = await deltas.next()) await writer.write(chunks.delta(next.value as ChatDelta));
    const answer = await stream.response;
    await writer.write(chunks.finish(answer));
    if (call.includeUsage) await writer.write(chunks.usage(answer.usage));
    response.end('data: [DONE]\n\n');
  } catch (error) {
    await deltas.return?.();
    if (response.destroyed) return;
    // The drain's reason, not the cancellation it caused, is what the caller is told.
    const reason = controller.signal.aborted ? controller.signal.reason : error;
    response.end(`data: ${JSON.stringify(errorBody(httpFailure(reason)))}\n\n`);
  } finally {
    clearInterval(heartbeat);
  }
}

/** The first delta if it settles within `ms`, else undefined (it keeps running). A rejection within `ms` rejects. */
async function withinHeartbeat<T>(first: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const later = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([first, later]);
  } finally {
    clearTimeout(timer);
  }
}

/** Writes honouring the socket's backpressure; a reader that takes nothing for `stallMs` ends the stream and cancels its call. */
class StreamWriter {
  constructor(
    readonly response: ServerResponse,
    readonly controller: AbortController,
    readonly stallMs: number,
  ) {}

  /** A comment is skipped while the socket is backed up: it only keeps an idle line alive. */
  comment(text: string): void {
    if (!this.response.destroyed && !this.response.writableNeedDrain) this.response.write(text);
  }

  async write(text: string): Promise<void> {
    const { response } = this;
    if (response.destroyed) throw new Error('the HTTP client disconnected');
    if (response.write(text)) return;
    const done = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<'stalled'>((resolve) => (timer = setTimeout(() => resolve('stalled'), this.stallMs)));
    try {
      const outcome = await Promise.race([once(response, 'drain', { signal: done.signal }), once(response, 'close', { signal: done.signal }), stalled]);
      if (outcome !== 'stalled') return;
      const error = new WriteStalledError(this.stallMs);
      this.controller.abort(error);
      response.destroy(error);
      throw error;
    } finally {
      clearTimeout(timer);
      done.abort();
    }
  }
}
