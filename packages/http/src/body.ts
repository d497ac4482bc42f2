/** Reading response bodies without trusting their size. */
import type { IncomingHttpHeaders } from 'node:http';
import { finished, type Readable } from 'node:stream';
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

/** What a response's Content-Length announces (NaN when absent or unreadable). */
function announcedLength(headers: IncomingHttpHeaders): number {
  return Number(headers['content-length']);
}

/** A Content-Length above the cap: the body is refused before a byte of it is read. */
function announcesMoreThan(headers: IncomingHttpHeaders, limitBytes: number): boolean {
  const announced = announcedLength(headers);
  return Number.isFinite(announced) && announced > limitBytes;
}

/** A Content-Length (a whole number of bytes) within the cap: reading to the announced end keeps the cap. */
export function announcesAtMost(headers: IncomingHttpHeaders, limitBytes: number): boolean {
  const announced = announcedLength(headers);
  return Number.isSafeInteger(announced) && announced >= 0 && announced <= limitBytes;
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
export function cappedChunks(
  body: AsyncIterable<Uint8Array>,
  headers: IncomingHttpHeaders,
  limitBytes: number,
  origin: BodyOrigin,
): AsyncIterable<Uint8Array> {
  return { [Symbol.asyncIterator]: () => new CappedChunks(body, headers, limitBytes, origin) };
}

/**
 * A hand-written iterator rather than an async generator: a stream passes every chunk through
 * here, and a generator around the body's own iterator costs a few more promise hops per chunk.
 */
class CappedChunks implements AsyncIterator<Uint8Array> {
  private inner: AsyncIterator<Uint8Array> | undefined;
  private bytes = 0;

  constructor(
    private readonly body: AsyncIterable<Uint8Array>,
    private readonly headers: IncomingHttpHeaders,
    private readonly limitBytes: number,
    private readonly origin: BodyOrigin,
  ) {}

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.inner === undefined) {
      if (announcesMoreThan(this.headers, this.limitBytes)) return Promise.reject(bodyTooLarge(this.origin, this.limitBytes));
      this.inner = this.body[Symbol.asyncIterator]();
    }
    return this.inner.next().then(this.count);
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    await this.inner?.return?.();
    return { done: true, value: undefined };
  }

  private readonly count = (result: IteratorResult<Uint8Array>): IteratorResult<Uint8Array> => {
    if (result.done === true) return result;
    this.bytes += result.value.byteLength;
    if (this.bytes > this.limitBytes) {
      // Stop reading: the rest of the body is not wanted.
      this.inner?.return?.().catch(() => undefined);
      throw bodyTooLarge(this.origin, this.limitBytes);
    }
    return result;
  };
}

/**
 * Hands each chunk of a 2xx body to `onChunk` as it arrives, under the same cap as `cappedChunks`;
 * resolves at the body's end, rejects with the body's error, the cap's `bodyTooLarge`, or what
 * `onChunk` threw (the body is then destroyed: the rest is not wanted). For streams: no async
 * iteration, so no promise hop between a chunk's arrival and its reader.
 */
export function eachCappedChunk(
  body: Readable,
  headers: IncomingHttpHeaders,
  limitBytes: number,
  origin: BodyOrigin,
  onChunk: (chunk: Uint8Array) => void,
): Promise<void> {
  if (announcesMoreThan(headers, limitBytes)) return Promise.reject(bodyTooLarge(origin, limitBytes));
  return new Promise((resolve, reject) => {
    let bytes = 0;
    let failure: { error: unknown } | undefined;
    const onData = (chunk: Uint8Array): void => {
      bytes += chunk.byteLength;
      try {
        if (bytes > limitBytes) throw bodyTooLarge(origin, limitBytes);
        onChunk(chunk);
      } catch (error) {
        failure = { error };
        body.off('data', onData);
        body.destroy();
      }
    };
    body.on('data', onData);
    finished(body, (error) => {
      body.off('data', onData);
      if (failure !== undefined) reject(failure.error);
      else if (error) reject(error);
      else resolve();
    });
  });
}

/** The whole capped body. */
export async function readCappedBytes(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}
