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

/**
 * A copy of JSON-like data (plain objects, arrays, strings, the rest as is) with every string and
 * key well-formed; strings that already are stay the same string.
 */
export function wellFormedDeep<T>(value: T): T {
  if (typeof value === 'string') return wellFormed(value) as T;
  if (Array.isArray(value)) return value.map(wellFormedDeep) as T;
  if (typeof value !== 'object' || value === null) return value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [wellFormed(key), wellFormedDeep(item)])) as T;
}
