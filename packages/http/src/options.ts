/** Checks of the options every provider factory shares; errors name the option and never echo a value. */
import type { Dispatcher } from 'undici';
import { DEFAULT_MAX_RESPONSE_BYTES } from './body.js';
import { isRecord } from './json.js';

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
