/** Checks of the options every provider factory shares; errors name the option and never echo a value. */
import type { Dispatcher } from 'undici';
import { DEFAULT_MAX_RESPONSE_BYTES } from './body.js';
import { isRecord } from './json.js';
import type { LivenessLimits } from './liveness-timer.js';

export const DEFAULT_FIRST_TOKEN_MS = 60_000;
export const DEFAULT_INTER_TOKEN_MS = 30_000;

/** The `liveness` option of every streaming provider: the bounds of a streamed answer, each optional. */
export interface LivenessOptions {
  /** Longest wait from sending the request to the first content or reasoning token. Default 60 000. */
  firstTokenMs?: number;
  /** Longest gap between two tokens. Default 30 000. */
  interTokenMs?: number;
  /** Caps a stream's total time below the attempt's `timeoutMs` (which always applies). Default: no cap. */
  totalMs?: number;
}

/** A checked `liveness` option: the limits an attempt runs for a stream, and the stream's cap (`Infinity` = none). */
export interface ResolvedLiveness {
  limits: LivenessLimits;
  totalMs: number;
}

/** `originOf(field)` names one field of the option in an error, e.g. `f(options.liveness.totalMs)`. */
export function checkLiveness(value: LivenessOptions | undefined, originOf: (field: keyof LivenessOptions) => string): ResolvedLiveness {
  const liveness = value ?? {};
  return {
    limits: {
      firstTokenMs: positive(liveness.firstTokenMs, DEFAULT_FIRST_TOKEN_MS, originOf('firstTokenMs')),
      interTokenMs: positive(liveness.interTokenMs, DEFAULT_INTER_TOKEN_MS, originOf('interTokenMs')),
    },
    totalMs: positive(liveness.totalMs, Number.POSITIVE_INFINITY, originOf('totalMs')),
  };
}

function positive(value: number | undefined, fallback: number, origin: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${origin} must be a positive finite number, got ${String(value)}`);
  return value;
}

export function checkMaxResponseBytes(value: unknown, origin: string): number {
  if (value === undefined) return DEFAULT_MAX_RESPONSE_BYTES;
  if (!(typeof value === 'number' && Number.isInteger(value) && value > 0)) {
    throw new RangeError(`${origin} must be a positive integer number of bytes, got ${String(value)}`);
  }
  return value;
}

/** An injected dispatcher (anything with undici's `request`), or undefined. */
export function checkDispatcher(value: unknown, origin: string): Dispatcher | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value) || typeof value['request'] !== 'function') throw new TypeError(`${origin} must be an undici Dispatcher`);
  return value as unknown as Dispatcher;
}

export function checkFunction<F>(value: F | undefined, origin: string): F | undefined {
  if (value !== undefined && typeof value !== 'function') throw new TypeError(`${origin} must be a function`);
  return value;
}

export function checkNonEmptyString(value: unknown, origin: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new TypeError(`${origin} must be a non-empty string`);
  return value;
}
