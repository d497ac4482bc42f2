/**
 * Well-formed UTF-16: a lone surrogate (half of a pair, e.g. from slicing an emoji) cannot be
 * encoded as UTF-8, so stores and upstreams reject or mangle it. It becomes U+FFFD, as a UTF-8
 * encoder would write it.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** A `\uD800`–`\uDFFF` escape in JSON text that is not itself escaped (an even run of backslashes before it). */
const JSON_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u[dD][89a-fA-F][0-9a-fA-F]{2}/g;

/** `text` with every lone surrogate replaced by U+FFFD; the same string when it is well-formed. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * `JSON.stringify(value)` with lone surrogates in keys and strings as U+FFFD escapes. JSON.stringify
 * writes a proper pair as the characters themselves and only a lone surrogate as a `\uD…` escape,
 * so every such escape in its output is a lone one.
 */
export function wellFormedJson(value: unknown): string {
  return JSON.stringify(value).replace(JSON_SURROGATE_ESCAPE, '$1\\ufffd');
}

/** Any UTF-16 surrogate, paired or not: text without one is well-formed at a glance. */
const SURROGATE = /[\uD800-\uDFFF]/;
/** `LONE_SURROGATE` without the global flag (a global regex keeps state between `test` calls). */
const ONE_LONE_SURROGATE = new RegExp(LONE_SURROGATE.source);

function isIllFormed(text: string): boolean {
  return SURROGATE.test(text) && ONE_LONE_SURROGATE.test(text);
}

/**
 * JSON-like data (plain objects, arrays, strings, the rest as is) with every string and key
 * well-formed: `value` itself when it already is (checked without copying), else a copy in which
 * strings that already are stay the same string.
 */
export function wellFormedDeep<T>(value: T): T {
  return holdsLoneSurrogate(value, 0) ? copyWellFormed(value) : value;
}

/** Deeper than this is not walked: copying it decides (and a cyclic value fails there as before). */
const MAX_SCAN_DEPTH = 64;

function holdsLoneSurrogate(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return isIllFormed(value);
  if (typeof value !== 'object' || value === null) return false;
  if (depth > MAX_SCAN_DEPTH) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsLoneSurrogate(item, depth + 1)) return true;
    return false;
  }
  if (!isPlainData(value)) return false;
  for (const key in value) if (isIllFormed(key) || holdsLoneSurrogate((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

function copyWellFormed<T>(value: T): T {
  if (typeof value === 'string') return wellFormed(value) as T;
  if (Array.isArray(value)) return value.map(copyWellFormed) as T;
  if (typeof value !== 'object' || value === null || !isPlainData(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [wellFormed(key), copyWellFormed(item)])) as T;
}

function isPlainData(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
