import type { ServerResponse } from 'node:http';
import type { SourceState } from './source-state.js';

/** One request being answered: what the route handlers get. */
export interface Exchange {
  res: ServerResponse;
  /** Aborts when the client goes away or the mock closes: every wait must honour it. */
  signal: AbortSignal;
  source: SourceState;
}

/** A complete response body. */
export interface Payload {
  contentType: string;
  bytes: Uint8Array;
}

export function jsonPayload(value: unknown): Payload {
  return { contentType: 'application/json', bytes: Buffer.from(JSON.stringify(value)) };
}

export function rawJsonPayload(text: string): Payload {
  return { contentType: 'application/json', bytes: Buffer.from(text) };
}

/** Resolves after `ms`; rejects with the signal's reason on abort, clearing the timer. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  if (!(ms > 0)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Never resolves on its own: rejects with the signal's reason once the exchange is aborted. */
export function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

export function sendPayload(
  res: ServerResponse,
  status: number,
  payload: Payload,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'content-type': payload.contentType,
    'content-length': String(payload.bytes.byteLength),
  });
  res.end(payload.bytes);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  sendPayload(res, status, jsonPayload(value), headers);
}

/** OpenAI-style error body. */
export function errorBody(message: string, type: string, code: string | number | null): object {
  return { error: { message, type, code } };
}
