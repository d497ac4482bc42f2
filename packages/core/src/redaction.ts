/**
 * Keeping secrets (API keys, header values) out of upstream text we keep: error messages, rows,
 * CLI output. An upstream may echo a secret as is, JSON-escaped (`\/`, `\u002f`, nested JSON),
 * URL-encoded or as HTML entities, and a read cut at a size cap may end inside one.
 *
 * The text is decoded into a few views (JSON-unescaped once and twice, URL-decoded once and twice,
 * HTML-decoded, and two combinations), each remembering where every character came from; a secret
 * found in any view has its original span redacted. Each decoder reads left to right and never
 * backtracks, so the work is linear in the text whatever it holds (a body of backslashes included).
 */

/** What replaces a secret in upstream text. */
const REDACTED = '[redacted]';

/**
 * A cut text's tail is redacted when it spells at least this many leading characters of a secret.
 * Fewer ("s", "sk-") are ordinary text far too often and give nothing away.
 */
export const MIN_CUT_PREFIX_CHARS = 4;

export interface RedactOptions {
  /** The text is the start of something longer (a read stopped at a cap): a tail that begins a secret is redacted too. */
  cut?: boolean;
}

/** Decoded text; character `i` came from the original's `[from[i], to[i])`. */
interface View {
  text: string;
  from: Int32Array;
  to: Int32Array;
  /** The original ends inside an escape that starts here (e.g. `\u00`, `%2`). */
  openAt: number | undefined;
  /** The original's length. */
  end: number;
}

/** One decoded piece: `text` replaces input characters `[at, at + length)`; `open`: an escape cut by the end. */
type Piece = { text: string; length: number } | 'open' | undefined;

interface Decoder {
  /** The characters a piece may start with; the text between them is copied as it is. */
  triggers: string;
  decode(input: string, at: number): Piece;
}

const JSON_SIMPLE: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const HEX4 = /^[0-9a-fA-F]{4}$/;
const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function rawView(text: string): View {
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  for (let i = 0; i < text.length; i += 1) {
    from[i] = i;
    to[i] = i + 1;
  }
  return { text, from, to, openAt: undefined, end: text.length };
}

/** `view` decoded by `decoder`, left to right without backtracking; the same view when nothing triggers it. */
function decodeView(view: View, decoder: Decoder): View {
  const input = view.text;
  const nextOf = new Map([...decoder.triggers].map((char) => [char, input.indexOf(char)]));
  if ([...nextOf.values()].every((at) => at === -1)) return view;
  /** The next trigger at or after `at`; each character's position is searched again only once passed. */
  const nextTrigger = (at: number): number => {
    let next = input.length;
    for (const [char, position] of nextOf) {
      const found = position !== -1 && position < at ? input.indexOf(char, at) : position;
      nextOf.set(char, found);
      if (found !== -1 && found < next) next = found;
    }
    return next;
  };
  const parts: string[] = [];
  const from = new Int32Array(input.length);
  const to = new Int32Array(input.length);
  let length = 0;
  let openAt = view.openAt;
  const copy = (start: number, end: number): void => {
    if (end === start) return;
    parts.push(input.slice(start, end));
    from.set(view.from.subarray(start, end), length);
    to.set(view.to.subarray(start, end), length);
    length += end - start;
  };
  for (let at = 0; at < input.length; ) {
    const next = nextTrigger(at);
    copy(at, next);
    if (next === input.length) break;
    const piece = decoder.decode(input, next);
    if (piece === 'open') {
      openAt ??= view.from[next];
      break;
    }
    if (piece === undefined) {
      copy(next, next + 1);
      at = next + 1;
      continue;
    }
    parts.push(piece.text);
    for (let i = 0; i < piece.text.length; i += 1) {
      from[length] = view.from[next]!;
      to[length] = view.to[next + piece.length - 1]!;
      length += 1;
    }
    at = next + piece.length;
  }
  return { text: parts.join(''), from: from.subarray(0, length), to: to.subarray(0, length), openAt, end: view.end };
}

const jsonUnescape: Decoder = {
  triggers: '\\',
  decode(input, at) {
    if (at + 1 >= input.length) return 'open';
    const next = input[at + 1]!;
    if (next !== 'u') {
      const simple = JSON_SIMPLE[next];
      return simple === undefined ? undefined : { text: simple, length: 2 };
    }
    const hex = input.slice(at + 2, at + 6);
    if (HEX4.test(hex)) return { text: String.fromCharCode(parseInt(hex, 16)), length: 6 };
    return at + 6 > input.length && /^[0-9a-fA-F]*$/.test(hex) ? 'open' : undefined;
  },
};

const PERCENT_TAIL = /^(%[0-9a-fA-F]{2})*%[0-9a-fA-F]?$|^(%[0-9a-fA-F]{2})+$/;

/** `%XX` runs as UTF-8 (a byte outside a valid sequence stays as it is); `+` as a space when `plus`. */
function urlDecoder(plus: boolean): Decoder {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const byteAt = (input: string, i: number): number | undefined => {
    const hex = input.slice(i + 1, i + 3);
    return input[i] === '%' && /^[0-9a-fA-F]{2}$/.test(hex) ? parseInt(hex, 16) : undefined;
  };
  return {
    triggers: plus ? '%+' : '%',
    decode(input, at) {
      if (input[at] === '+') return { text: ' ', length: 1 };
      const lead = byteAt(input, at);
      // Only an escape cut by the end of the text is open; the test reads at most a few characters.
      const open = () => (input.length - at <= 12 && PERCENT_TAIL.test(input.slice(at)) ? 'open' : undefined);
      if (lead === undefined) return open();
      const size = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      if (size === 1) return { text: String.fromCharCode(lead), length: 3 };
      const bytes = [lead];
      for (let i = 1; i < size; i += 1) {
        const byte = byteAt(input, at + 3 * i);
        if (byte === undefined) return open() ?? { text: String.fromCharCode(lead), length: 3 };
        bytes.push(byte);
      }
      try {
        return { text: utf8.decode(new Uint8Array(bytes)), length: 3 * size };
      } catch {
        return { text: String.fromCharCode(lead), length: 3 };
      }
    },
  };
}

const htmlDecode: Decoder = {
  triggers: '&',
  decode(input, at) {
    const head = input.slice(at, at + 12);
    const entity = /^&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,5});/.exec(head);
    if (entity === null) return at + 12 > input.length && /^&(#x?[0-9a-fA-F]*|[a-zA-Z]*)$/.test(head) ? 'open' : undefined;
    const name = entity[1]!;
    const code = name.startsWith('#x') ? parseInt(name.slice(2), 16) : name.startsWith('#') ? parseInt(name.slice(1), 10) : undefined;
    const text = code === undefined ? NAMED_ENTITIES[name.toLowerCase()] : code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
    return text === undefined ? undefined : { text, length: entity[0].length };
  },
};

const URL_DECODE = urlDecoder(false);
const FORM_DECODE = urlDecoder(true);

/** The text as an upstream may have encoded it, decoded every way we look at; each distinct view once. */
function views(raw: View): View[] {
  const json = decodeView(raw, jsonUnescape);
  const url = decodeView(raw, URL_DECODE);
  const all = [
    raw,
    json,
    decodeView(json, jsonUnescape),
    url,
    decodeView(url, URL_DECODE),
    decodeView(raw, FORM_DECODE),
    decodeView(json, URL_DECODE),
    decodeView(raw, htmlDecode),
    decodeView(json, htmlDecode),
  ];
  return [...new Set(all)];
}

/**
 * The usual encodings of a secret, looked for as they are in the original too: a view decodes left
 * to right, so an escape-like run just before an echo (`%0` then `%20…`) can shift its reading.
 */
function spellings(secret: string): string[] {
  const url = encodeURIComponent(secret);
  const json = JSON.stringify(secret).slice(1, -1);
  const lower = (text: string) => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
  return [...new Set([secret, url, lower(url), encodeURIComponent(url), json, json.replaceAll('/', '\\/')])];
}

/** Original spans `[start, end)` of every occurrence of `secret` in `view`, overlapping ones included. */
function occurrences(view: View, secret: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (let at = view.text.indexOf(secret); at !== -1; at = view.text.indexOf(secret, at + 1)) {
    spans.push([view.from[at]!, view.to[at + secret.length - 1]!]);
  }
  return spans;
}

/** The original span of the longest tail of `view` that spells the secret's first MIN_CUT_PREFIX_CHARS or more characters. */
function cutTail(view: View, secret: string): [number, number] | undefined {
  const { text } = view;
  for (let length = Math.min(secret.length - 1, text.length); length >= MIN_CUT_PREFIX_CHARS; length -= 1) {
    if (text.endsWith(secret.slice(0, length))) return [view.from[text.length - length]!, view.end];
  }
  return undefined;
}

/**
 * `text` with every secret replaced by `[redacted]`, in any of the forms an upstream may echo it
 * in. With `cut`, a tail spelling the start of a secret (at least MIN_CUT_PREFIX_CHARS characters,
 * possibly ending inside an escape) is redacted as well. Empty and absent secrets are ignored.
 */
export function redactSecrets(text: string, secrets: Iterable<string | undefined>, options: RedactOptions = {}): string {
  const wanted = [...new Set(secrets)].filter((secret): secret is string => typeof secret === 'string' && secret !== '');
  if (wanted.length === 0 || text === '') return text;
  const spans: Array<[number, number]> = [];
  const raw = rawView(text);
  for (const secret of wanted) for (const spelling of spellings(secret)) spans.push(...occurrences(raw, spelling));
  for (const view of views(raw)) {
    for (const secret of wanted) {
      spans.push(...occurrences(view, secret));
      const tail = options.cut ? cutTail(view, secret) : undefined;
      if (tail) spans.push(tail);
    }
  }
  return replaceSpans(text, spans);
}

/** Replaces each run of overlapping or touching spans by one `[redacted]`. */
function replaceSpans(text: string, spans: Array<[number, number]>): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let result = '';
  let at = 0;
  let [start, end] = spans[0]!;
  for (const [nextStart, nextEnd] of spans.slice(1)) {
    if (nextStart <= end) {
      end = Math.max(end, nextEnd);
      continue;
    }
    result += text.slice(at, start) + REDACTED;
    at = end;
    [start, end] = [nextStart, nextEnd];
  }
  return result + text.slice(at, start) + REDACTED + text.slice(end);
}

/** Replaces every occurrence of `secret`, in any encoded form (an empty or absent secret leaves the text as it is). */
export function redactSecret(text: string, secret: string | undefined): string {
  return redactSecrets(text, [secret]);
}
