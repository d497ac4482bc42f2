/** Small pure helpers shared by HTTP transports: error bodies, Retry-After, token estimates. */

const ELLIPSIS = ' … ';

/** Drops a half surrogate pair left at either edge of a cut. */
function trimCutEdges(head: string, tail: string): [string, string] {
  const lastHead = head.charCodeAt(head.length - 1);
  const firstTail = tail.charCodeAt(0);
  return [
    lastHead >= 0xd800 && lastHead <= 0xdbff ? head.slice(0, -1) : head,
    firstTail >= 0xdc00 && firstTail <= 0xdfff ? tail.slice(1) : tail,
  ];
}

/**
 * Folds whitespace runs to one space and, when longer than `max` characters, keeps the head and
 * the tail around ' … ' (a trailing JSON `code` / `request_id` survives). The result is ≤ `max`.
 */
export function summarizeBody(text: string, max = 2048): string {
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`summarizeBody(max) must be a positive integer, got ${max}`);
  }
  const folded = text.replace(/\s+/g, ' ').trim();
  if (folded.length <= max) return folded;
  if (max <= ELLIPSIS.length) return folded.slice(0, max);
  const room = max - ELLIPSIS.length;
  const tailLength = Math.floor(room / 2);
  const [head, tail] = trimCutEdges(folded.slice(0, room - tailLength), folded.slice(folded.length - tailLength));
  return head.trimEnd() + ELLIPSIS + tail.trimStart();
}

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function headerValue(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.hasOwn(headers, name) ? name : Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

/** What one header value says: a delay, "no hint", or a non-finite number (warned about). */
type Hint = { ms: number } | 'none' | 'not_finite';

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const INFINITE = /^[+-]?inf(inity)?$/i;
/** The three HTTP-date forms of RFC 9110 §5.6.7; asctime carries no zone but means GMT. */
const IMF_OR_RFC850 = /^[a-z]+, \d{1,2}[ -][a-z]{3}[ -]\d{2,4} \d{2}:\d{2}:\d{2} GMT$/i;
const ASCTIME = /^[a-z]{3} [a-z]{3} [ \d]?\d \d{2}:\d{2}:\d{2} \d{4}$/i;

function numericHint(value: string, unitMs: number): Hint | undefined {
  if (INFINITE.test(value)) return 'not_finite';
  if (!DECIMAL.test(value)) return undefined;
  const ms = Number(value) * unitMs;
  if (!Number.isFinite(ms)) return 'not_finite';
  return ms > 0 ? { ms: Math.ceil(ms) } : 'none';
}

function dateHint(value: string, now: () => number): Hint {
  const at = IMF_OR_RFC850.test(value) ? Date.parse(value) : ASCTIME.test(value) ? Date.parse(`${value} GMT`) : NaN;
  if (Number.isNaN(at)) return 'none';
  const ms = at - now();
  return ms > 0 ? { ms: Math.ceil(ms) } : 'none';
}

/**
 * Retry hint in ms (docs/architecture.md#retry-backoff-and-retry-after), or undefined. A valid `retry-after-ms` (milliseconds) wins; else
 * `retry-after` as seconds (decimals allowed) or an HTTP-date (future → ms until it; past → none).
 * A non-finite value (`inf`, `-inf`, `1e999`, `Infinity`) is "no hint" with exactly one warning
 * that names the source and the verdict `retry_after_not_finite`, never the raw header (it is
 * upstream-controlled text). `nan`, empty, zero, negative and garbage are silently "no hint".
 * Accepts a `Headers` or a plain record of lower-cased names (a string[] value uses its first).
 */
export function parseRetryAfter(
  headers: HeaderBag,
  options: { sourceName: string; warn: (message: string) => void; now?: () => number },
): number | undefined {
  const msValue = headerValue(headers, 'retry-after-ms')?.trim();
  const msHint = msValue === undefined ? undefined : (numericHint(msValue, 1) ?? 'none');
  let hint = msHint;
  if (typeof hint !== 'object') {
    const value = headerValue(headers, 'retry-after')?.trim();
    if (value !== undefined) hint = numericHint(value, 1000) ?? dateHint(value, options.now ?? Date.now);
  }
  if (hint === 'not_finite' || msHint === 'not_finite') {
    options.warn(`source ${options.sourceName}: retry_after_not_finite: ignoring a non-finite Retry-After hint`);
  }
  return typeof hint === 'object' ? hint.ms : undefined;
}

/** Han, kana and hangul: about one token per character in common tokenizers. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const CHARS_PER_TOKEN = 4;

/** Rough token estimate of a text when the upstream reports no usage: CJK ≈ 1/char, else ≈ 4 chars/token. */
export function estimateTokens(text: string): number {
  if (text.length === 0) return 0;
  const cjk = text.match(CJK)?.length ?? 0;
  const other = text.replace(CJK, '').length;
  return Math.max(1, cjk + Math.ceil(other / CHARS_PER_TOKEN));
}
