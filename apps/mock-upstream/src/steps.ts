import { delay, errorBody, sendJson, sendPayload, waitForAbort, type Exchange, type Payload } from './exchange.js';
import type { Step } from './types.js';

/** Steps a route answers itself (everything else is handled alike for all routes). */
export type RouteStep = Extract<Step, { kind: 'ok' | 'truncate' | 'stall' | 'malformed' | 'wrong_dim' }>;

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
export async function sendWholeOrCut(ex: Exchange, step: RouteStep, full: Payload, malformed: Payload): Promise<void> {
  if (step.kind === 'malformed') return sendPayload(ex.res, 200, malformed);
  if (step.kind !== 'truncate' && step.kind !== 'stall') return sendPayload(ex.res, 200, full);
  ex.res.writeHead(200, { 'content-type': full.contentType, 'content-length': String(full.bytes.byteLength) });
  const half = full.bytes.subarray(0, Math.floor(full.bytes.byteLength / 2));
  await new Promise<void>((resolve) => ex.res.write(half, () => resolve()));
  if (step.kind === 'stall') return waitForAbort(ex.signal);
  ex.res.destroy();
}
