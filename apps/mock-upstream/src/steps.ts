import { delay, errorBody, jsonPayload, sendJson, sendPayload, waitForAbort, type Exchange, type Payload } from './exchange.js';
import type { InBandError, Step } from './types.js';

/** Steps a route answers itself (everything else is handled alike for all routes). */
export type RouteStep = Extract<Step, { kind: 'ok' | 'truncate' | 'stall' | 'malformed' | 'wrong_dim' | 'in_band_error' | 'oversized' | 'tool_calls' }>;

export const MIB = 1024 * 1024;
const OVERSIZED_CHUNK = 64 * 1024;

export type Responder = (ex: Exchange, step: RouteStep) => Promise<void>;

/** Plays one scripted step: failures common to every route here, the rest through the route's responder. */
export async function playStep(ex: Exchange, step: Step, respond: Responder): Promise<void> {
  switch (step.kind) {
    case 'status':
      return sendStatusStep(ex, step);
    case 'rate_limit':
      sendJson(
        ex.res,
        429,
        errorBody('Rate limit reached (mock)', 'rate_limit_exceeded', 'rate_limit_exceeded'),
        step.retryAfter === undefined ? {} : { 'retry-after': step.retryAfter },
      );
      return;
    case 'insufficient_quota':
      sendJson(
        ex.res,
        429,
        errorBody('You exceeded your current quota (mock)', 'insufficient_quota', 'insufficient_quota'),
      );
      return;
    case 'context_length_exceeded': {
      const window = step.contextWindow ?? 4096;
      const message = `This model's maximum context length is ${window} tokens. However, your messages resulted in ${window + 1} tokens. Please reduce the length of the messages. (mock)`;
      sendJson(ex.res, 400, { error: { message, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } });
      return;
    }
    case 'hang':
      return waitForAbort(ex.signal);
    case 'latency':
      await delay(step.ms, ex.signal);
      return respond(ex, { kind: 'ok' });
    default:
      return respond(ex, step);
  }
}

function sendStatusStep(ex: Exchange, step: Extract<Step, { kind: 'status' }>): void {
  const headers: Record<string, string> = { ...step.headers };
  if (step.retryAfter !== undefined) headers['retry-after'] = step.retryAfter;
  if (step.retryAfterMs !== undefined) headers['retry-after-ms'] = step.retryAfterMs;
  const body = step.body ?? errorBody(`mock status ${step.status}`, 'mock_error', step.status);
  // A step's own Content-Type wins (e.g. an HTML error page served with 200).
  const payload: Payload =
    typeof body === 'string'
      ? { contentType: headers['content-type'] ?? (looksLikeJson(body) ? 'application/json' : 'text/plain'), bytes: Buffer.from(body) }
      : { contentType: 'application/json', bytes: Buffer.from(JSON.stringify(body)) };
  sendPayload(ex.res, step.status, payload, headers);
}

function looksLikeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Answers a non-streaming route: the full body, or for `truncate` / `stall` half of it under a
 * Content-Length promising all of it — then the socket is destroyed (truncate) or left silent (stall).
 */
export async function sendWholeOrCut(
  ex: Exchange,
  step: RouteStep,
  full: Payload,
  malformed: Payload,
  oversizedFrame: OversizedFrame = ['', ''],
): Promise<void> {
  if (step.kind === 'malformed') return sendPayload(ex.res, 200, malformed);
  if (step.kind === 'in_band_error') return sendPayload(ex.res, 200, jsonPayload({ error: inBandError(step.error) }));
  if (step.kind === 'oversized') return sendOversized(ex, full.contentType, step, oversizedFrame);
  if (step.kind !== 'truncate' && step.kind !== 'stall') return sendPayload(ex.res, 200, full);
  ex.res.writeHead(200, { 'content-type': full.contentType, 'content-length': String(full.bytes.byteLength) });
  const half = full.bytes.subarray(0, Math.floor(full.bytes.byteLength / 2));
  await new Promise<void>((resolve) => ex.res.write(half, () => resolve()));
  if (step.kind === 'stall') return waitForAbort(ex.signal);
  ex.res.destroy();
}

/** The error object of an `in_band_error` step. */
export function inBandError(error: InBandError | undefined): InBandError {
  return { message: 'mock in-band error', type: 'invalid_request_error', ...error };
}

/** Text around the filler of an oversized body, so that it stays well-formed (e.g. a JSON string value). */
export type OversizedFrame = readonly [prefix: string, suffix: string];

/** About `mb` MiB: the frame around 'x' filler, in 64 KiB writes, honouring backpressure and the exchange's abort. */
async function sendOversized(ex: Exchange, contentType: string, step: Extract<Step, { kind: 'oversized' }>, frame: OversizedFrame): Promise<void> {
  const [prefix, suffix] = frame.map((text) => Buffer.from(text)) as [Buffer, Buffer];
  const filler = Math.max(0, Math.round(step.mb * MIB) - prefix.byteLength - suffix.byteLength);
  const total = prefix.byteLength + filler + suffix.byteLength;
  ex.res.writeHead(200, { 'content-type': contentType, ...(step.contentLength === true && { 'content-length': String(total) }) });
  ex.res.write(prefix);
  const chunk = Buffer.alloc(OVERSIZED_CHUNK, 0x78);
  for (let sent = 0; sent < filler; sent += chunk.byteLength) {
    if (ex.signal.aborted) return;
    const piece = filler - sent < chunk.byteLength ? chunk.subarray(0, filler - sent) : chunk;
    if (!ex.res.write(piece)) await drained(ex);
  }
  ex.res.end(suffix);
}

/** Resolves when the response can take more, or the exchange ends. */
export function drained(ex: Exchange): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      ex.res.off('drain', done);
      ex.signal.removeEventListener('abort', done);
      resolve();
    };
    ex.res.once('drain', done);
    ex.signal.addEventListener('abort', done, { once: true });
  });
}
