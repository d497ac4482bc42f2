/**
 * Validation of a public call's arguments (docs/architecture.md#public-api): it runs before a logical call starts, so a bad
 * argument produces no call stats, no telemetry row and no upstream request.
 */
import { abortError, assertKeyBounds, PRIORITIES, RequestTooLargeError, type KeyBounds, type Priority } from '@pgw/core';
import { ensureCallDeadline } from '@pgw/core/internal';
import type { ChatMessage, GatewaySettings } from '@pgw/core';
import { deepFreeze } from './deep-freeze.js';

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);
/** Identifiers land in telemetry columns and indexes: bounded so one caller cannot bloat them. */
export const MAX_ID_LENGTH = 256;
/** `meta` is stored as JSON beside every row of the call. */
export const MAX_META_JSON_LENGTH = 8192;
const MAX_JSON_DEPTH = 16;
const BYTES_PER_MB = 1024 * 1024;

export function assertMessages(messages: unknown, origin: string): asserts messages is ChatMessage[] {
  if (!Array.isArray(messages)) throw new TypeError(`${origin} must be an array of {role, content}, got ${describe(messages)}`);
  if (messages.length === 0) throw new RangeError(`${origin} must not be empty`);
  messages.forEach((message: unknown, index) => {
    const at = `${origin}[${index}]`;
    if (!isPlainObject(message)) throw new TypeError(`${at} must be an object {role, content}, got ${describe(message)}`);
    if (typeof message.role !== 'string' || !ROLES.has(message.role)) {
      throw new TypeError(`${at}.role must be one of ${[...ROLES].join(', ')}, got ${describe(message.role)}`);
    }
    const content = message.content;
    if (Array.isArray(content)) {
      content.forEach((part: unknown, partIndex) => {
        if (!isPlainObject(part) || typeof part.type !== 'string') {
          throw new TypeError(`${at}.content[${partIndex}] must be a content part {type, …}, got ${describe(part)}`);
        }
      });
    } else if (typeof content !== 'string' && content !== null) {
      throw new TypeError(`${at}.content must be a string or an array of content parts, got ${describe(content)}`);
    }
    if (message.name !== undefined && typeof message.name !== 'string') throw new TypeError(`${at}.name must be a string`);
  });
}

/**
 * Refuses a request larger than `{scope}__MAX_REQUEST_MB` before anything starts: a huge payload
 * would hold a quota slot, an upstream connection and memory for nothing. The request is `json`
 * (as sent) plus `extraBytes` of raw payload (an image).
 */
export function assertRequestSize(
  json: unknown,
  origin: string,
  settings: Pick<GatewaySettings, 'scope' | 'maxRequestMb'>,
  extraBytes = 0,
): void {
  const limit = settings.maxRequestMb * BYTES_PER_MB;
  // The cheap bound first: the exact count serialises the whole request once more, on every call.
  if (extraBytes + jsonBytesBound(json, 0) <= limit) return;
  const bytes = extraBytes + Buffer.byteLength(JSON.stringify(json), 'utf8');
  if (bytes <= limit) return;
  throw new RequestTooLargeError({ origin, bytes, limitMb: settings.maxRequestMb, key: `${settings.scope}__MAX_REQUEST_MB` });
}

/** Largest JSON escape of one UTF-16 unit: `\u001f` is 6 bytes (a non-ASCII unit is at most 3 in UTF-8). */
const MAX_BYTES_PER_UNIT = 6;
/** Longest JSON form of a number (`-1.2345678901234567e-308`), with room to spare. */
const MAX_NUMBER_BYTES = 32;

/** An upper bound of the UTF-8 bytes of `value` as JSON, without serialising it (deep or odd data: infinite). */
export function jsonBytesBound(value: unknown, depth: number): number {
  if (typeof value === 'string') return MAX_BYTES_PER_UNIT * value.length + 2;
  // A bigint (JSON.stringify throws) and an object with its own JSON form (toJSON) are left to the exact count.
  if (typeof value === 'bigint') return Number.POSITIVE_INFINITY;
  if (typeof value !== 'object' || value === null) return MAX_NUMBER_BYTES;
  if (depth > MAX_JSON_DEPTH || !(Array.isArray(value) || isPlainObject(value))) return Number.POSITIVE_INFINITY;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (const item of value) bytes += jsonBytesBound(item, depth + 1) + 1;
    return bytes;
  }
  for (const key in value) bytes += MAX_BYTES_PER_UNIT * key.length + 4 + jsonBytesBound((value as Record<string, unknown>)[key], depth + 1);
  return bytes;
}

/** Explicit over implicit: a bare string is refused rather than embedded as one text. */
export function assertTexts(texts: unknown, origin: string): asserts texts is string[] {
  if (typeof texts === 'string') throw new TypeError(`${origin} must be an array of strings; wrap a single text as [text]`);
  if (!Array.isArray(texts)) throw new TypeError(`${origin} must be an array of strings, got ${describe(texts)}`);
  texts.forEach((text: unknown, index) => {
    if (typeof text !== 'string') throw new TypeError(`${origin}[${index}] must be a string, got ${describe(text)}`);
  });
}

export function assertImage(image: unknown, origin: string): asserts image is Uint8Array {
  if (!(image instanceof Uint8Array)) throw new TypeError(`${origin} must be a Uint8Array (image bytes), got ${describe(image)}`);
  if (image.byteLength === 0) throw new RangeError(`${origin} must not be empty`);
}

export function assertSignal(signal: unknown, origin: string): asserts signal is AbortSignal | undefined {
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`${origin} must be an AbortSignal, got ${describe(signal)}`);
  }
}

export interface CallerDimensions {
  sessionId?: string;
  parentCallId?: string;
  tenantId?: string;
  /** `batch`: admitted only while no interactive call of the scope waits, within the scope's batch share (default interactive). */
  priority?: Priority;
  /**
   * A stored API key's bounds (`{ id, rpm, tpm, maxConcurrency, budget? }`, 0 = unbounded): its own
   * gates and budget, checked and booked with the tenant's (docs/architecture.md#keys). The door
   * passes its key record's; a copy is taken.
   */
  key?: KeyBounds;
  meta?: Readonly<Record<string, unknown>>;
}

/** Validates the caller's telemetry dimensions; `meta` comes back as a frozen JSON copy. */
export function callerDimensions(options: CallerDimensions, method: string): CallerDimensions {
  const dimensions: CallerDimensions = {};
  for (const field of ['sessionId', 'parentCallId', 'tenantId'] as const) {
    const value: unknown = options[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '' || value.length > MAX_ID_LENGTH) {
      throw new TypeError(`${method}(${field}) must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
    }
    dimensions[field] = value;
  }
  if (options.priority !== undefined) {
    if (!(PRIORITIES as readonly unknown[]).includes(options.priority)) {
      throw new TypeError(`${method}(priority) must be one of ${PRIORITIES.join(' | ')}, got ${describe(options.priority)}`);
    }
    dimensions.priority = options.priority;
  }
  if (options.key !== undefined) dimensions.key = keyBoundsOf(options.key, `${method}(key)`);
  if (options.meta !== undefined) {
    const origin = `${method}(meta)`;
    if (!isPlainObject(options.meta)) throw new TypeError(`${origin} must be a plain object, got ${describe(options.meta)}`);
    assertJson(options.meta, origin, 0);
    const json = JSON.stringify(options.meta);
    if (json.length > MAX_META_JSON_LENGTH) {
      throw new RangeError(`${origin} is ${json.length} characters as JSON; the bound is ${MAX_META_JSON_LENGTH}`);
    }
    dimensions.meta = deepFreeze(JSON.parse(json) as Record<string, unknown>);
  }
  return dimensions;
}

/** A frozen copy of checked key bounds: the caller may not change them under a running call. */
function keyBoundsOf(key: unknown, origin: string): KeyBounds {
  assertKeyBounds(key, origin);
  const { id, rpm, tpm, maxConcurrency, budget } = key;
  return Object.freeze({ id, rpm, tpm, maxConcurrency, ...(budget && { budget: Object.freeze({ usd: budget.usd, window: budget.window }) }) });
}

/** What every public call accepts besides its payload. */
export interface CommonCallOptions extends CallerDimensions {
  /** Undefined inherits the client's deadline; there is no "off for this call". */
  callDeadlineMs?: number;
  signal?: AbortSignal;
}

const COMMON_OPTIONS = ['sessionId', 'parentCallId', 'tenantId', 'priority', 'key', 'meta', 'callDeadlineMs', 'signal'];

/**
 * Validates a call's options object (unknown option names are refused: a misspelt option must
 * not be silently ignored) and returns the common part ready for the pipeline. A signal that is
 * already aborted ends the call here, before it starts.
 */
export function commonCallOptions(
  options: unknown,
  method: string,
  ownOptions: readonly string[],
  assembledDeadlineMs: number | undefined,
): CommonCallOptions {
  if (options === undefined) options = {};
  if (!isPlainObject(options)) throw new TypeError(`${method}(options) must be a plain object, got ${describe(options)}`);
  for (const key of Object.keys(options)) {
    if (!COMMON_OPTIONS.includes(key) && !ownOptions.includes(key)) {
      throw new TypeError(`${method}(options) has no option '${key}'; known: ${[...COMMON_OPTIONS, ...ownOptions].join(', ')}`);
    }
  }
  const { signal } = options;
  assertSignal(signal, `${method}(signal)`);
  const dimensions = callerDimensions(options, method);
  const callDeadlineMs = resolveCallDeadline(options.callDeadlineMs, assembledDeadlineMs, `${method}(callDeadlineMs)`);
  if (signal?.aborted) throw abortError(signal);
  return { ...dimensions, ...(callDeadlineMs !== undefined && { callDeadlineMs }), ...(signal && { signal }) };
}

/** A per-call deadline: undefined inherits the assembled one; anything else must be legal. */
export function resolveCallDeadline(value: unknown, assembled: number | undefined, origin: string): number | undefined {
  return value === undefined ? assembled : ensureCallDeadline(value, origin);
}

/** Plain JSON data only: what JSON.stringify would drop or mangle is refused, not silently lost. */
export function assertJson(value: unknown, origin: string, depth: number): void {
  if (depth > MAX_JSON_DEPTH) throw new RangeError(`${origin} nests deeper than ${MAX_JSON_DEPTH} levels (or is cyclic)`);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return;
    throw new TypeError(`${origin} holds a non-finite number, which JSON cannot represent`);
  }
  if (Array.isArray(value)) {
    value.forEach((item: unknown, index) => assertJson(item, `${origin}[${index}]`, depth + 1));
    return;
  }
  if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) assertJson(item, `${origin}.${key}`, depth + 1);
    return;
  }
  throw new TypeError(`${origin} must be JSON-serialisable, got ${describe(value)}`);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'an object';
  return typeof value;
}
