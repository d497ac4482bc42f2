/** Reading response bodies without trusting their size. */
import type { IncomingHttpHeaders } from 'node:http';
import { ResultInvalidError } from '@pgw/core';

/** An error body beyond this is not read: summaries keep 2048 characters anyway. */
export const ERROR_BODY_LIMIT_BYTES = 64 * 1024;
/** Default cap of a 2xx body. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** A body read up to a cap; `cut` when reading stopped before its end. */
export interface CappedText {
  text: string;
  cut: boolean;
}

/** Reads at most about `limitBytes` of a body as text, then stops (the caller destroys the rest: an error page may be huge). */
export async function readCappedText(body: AsyncIterable<Uint8Array>, limitBytes: number): Promise<CappedText> {
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  let cut = false;
  // Leaving the loop early destroys the body, which closes its socket instead of returning it to the pool.
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    bytes += chunk.byteLength;
    if (bytes >= limitBytes) {
      cut = true;
      break;
    }
  }
  return { text: text + decoder.decode(), cut };
}

export function isEventStream(headers: IncomingHttpHeaders): boolean {
  return (headers['content-type'] ?? '').toLowerCase().includes('text/event-stream');
}

export interface BodyOrigin {
  sourceName: string;
  route: string;
  status: number;
}

/** A 2xx body larger than the cap: the answer is cut off and unusable (not retried: the next would be as large). */
export function bodyTooLarge(origin: BodyOrigin, limitBytes: number): ResultInvalidError {
  const issue = `the answer exceeds maxResponseBytes (${limitBytes} bytes)`;
  return new ResultInvalidError({
    message: `source ${origin.sourceName} ${origin.route}: ${issue}; cut off at the limit`,
    sourceName: origin.sourceName,
    statusCode: origin.status,
    issues: [issue],
  });
}

/**
 * The chunks of a 2xx body, failing with `bodyTooLarge` as soon as more than `limitBytes` arrived
 * (or a Content-Length announces more): nothing beyond the cap is kept.
 */
export async function* cappedChunks(
  body: AsyncIterable<Uint8Array>,
  headers: IncomingHttpHeaders,
  limitBytes: number,
  origin: BodyOrigin,
): AsyncGenerator<Uint8Array> {
  const announced = Number(headers['content-length']);
  if (Number.isFinite(announced) && announced > limitBytes) throw bodyTooLarge(origin, limitBytes);
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > limitBytes) throw bodyTooLarge(origin, limitBytes);
    yield chunk;
  }
}

/** The whole capped body. */
export async function readCappedBytes(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}
