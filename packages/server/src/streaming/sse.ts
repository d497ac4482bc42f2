/**
 * A streamed answer as Server-Sent Events, in the protocol its encoder writes. The status line
 * waits for the first delta, so a call that fails before any token (quota full, breakers open,
 * deadline) still gets its HTTP status and `Retry-After` — but no longer than one heartbeat: a call
 * still waiting then (for admission, for a slow first token) gets its 200 and a `: keep-alive`
 * comment every heartbeat, so proxies with an idle timeout keep the stream. After the status, a
 * failure ends the stream with the protocol's error event, never a whole answer's end. A reader
 * that takes no bytes for the write-stall bound ends the stream and cancels its call.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { ChatDelta, ChatMessage, ChatOptions, GatewayClient } from '@pgw/client';
import type { FastifyReply } from 'fastify';
import type { StreamEncoder } from '@pgw/wire';
import type { RequestCall } from './call-context.js';
import { failureAnswer } from '../door/http-errors.js';
import { WriteStalledError } from '../door/request-error.js';

export interface StreamLimits {
  heartbeatMs: number;
  writeStallMs: number;
}

const HEARTBEAT = ': keep-alive\n\n';

/** The route's encoder of its protocol (@pgw/wire), made once the call's id is known. */
export type EncoderFor = (call: RequestCall) => StreamEncoder;

/** What a stream call needs of any protocol's request: the messages, the options, and what its answer's headers add. */
export interface StreamCall {
  messages: ChatMessage[];
  options: ChatOptions;
  headers?: Readonly<Record<string, string>>;
}

export async function streamAnswer(
  client: GatewayClient,
  call: StreamCall,
  reply: FastifyReply,
  controller: AbortController,
  requestCall: RequestCall,
  limits: StreamLimits,
  encoderFor: EncoderFor,
): Promise<void> {
  const { structured: _never, ...options } = call.options;
  const stream = client.chatStream(call.messages, options);
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
    'x-pgw-call-id': requestCall.callId ?? '',
    'x-pgw-source': requestCall.source ?? '',
    ...call.headers,
  });
  const writer = new StreamWriter(response, controller, limits.writeStallMs);
  const heartbeat = setInterval(() => writer.comment(HEARTBEAT), limits.heartbeatMs);
  const encoder = encoderFor(requestCall);
  try {
    if (early === undefined) writer.comment(HEARTBEAT);
    const opening = encoder.start();
    if (opening !== '') await writer.write(opening);
    for (let next = await first; !next.done; next = await deltas.next()) {
      const events = encoder.delta(next.value as ChatDelta);
      if (events !== '') await writer.write(events);
    }
    response.end(await encoder.finish(await stream.response));
  } catch (error) {
    await deltas.return?.();
    if (response.destroyed) return;
    // The drain's reason, not the cancellation it caused, is what the caller is told.
    const reason = controller.signal.aborted ? controller.signal.reason : error;
    response.end(encoder.fail(failureAnswer(reason)));
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
