/**
 * Keeping secrets (API keys, header values) out of upstream text we keep: error messages, rows,
 * CLI output. An upstream may echo a secret as is, JSON-escaped (`\/`, `\u002f`, nested JSON),
 * URL-encoded or as HTML entities, and a read cut at a size cap may end inside one.
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

/** JSON writes these three with a backslash; nested JSON adds more backslashes. */
const BACKSLASH_ESCAPED = new Set(['/', '"', '\\']);
const BACKSLASH_RUNS = ['\\', '\\\\', '\\\\\\'];
const NAMED_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const UTF8 = new TextEncoder();

function hex(value: number, width: number): string[] {
  const lower = value.toString(16).padStart(width, '0');
  return [lower, lower.toUpperCase()];
}

/** Every way one character (a code point) of a secret may be written in upstream text. */
function charForms(char: string): string[] {
  const forms = new Set<string>([char]);
  const units = Array.from({ length: char.length }, (_, i) => char.charCodeAt(i));
  for (const run of BACKSLASH_RUNS) {
    if (BACKSLASH_ESCAPED.has(char)) forms.add(run + char);
    for (const letterCase of [0, 1]) forms.add(units.map((unit) => `${run}u${hex(unit, 4)[letterCase]}`).join(''));
  }
  const bytes = [...UTF8.encode(char)];
  for (const letterCase of [0, 1]) {
    for (const percent of ['%', '%25']) forms.add(bytes.map((byte) => percent + hex(byte, 2)[letterCase]).join(''));
    forms.add(`&#x${hex(char.codePointAt(0)!, 1)[letterCase]};`);
  }
  forms.add(`&#${char.codePointAt(0)!};`);
  if (char === ' ') forms.add('+');
  const entity = NAMED_ENTITIES[char];
  if (entity !== undefined) forms.add(entity);
  return [...forms].sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One secret, with the forms of each of its characters. */
class SecretSpelling {
  private readonly forms: string[][];
  /** Any encoded occurrence of the whole secret. */
  readonly anywhere: RegExp;
  /** The longest an encoded occurrence can be. */
  private readonly maxLength: number;

  constructor(secret: string) {
    this.forms = Array.from(secret, charForms);
    this.anywhere = new RegExp(this.forms.map((forms) => `(?:${forms.map(escapeRegExp).join('|')})`).join(''), 'g');
    this.maxLength = this.forms.reduce((sum, forms) => sum + forms[0]!.length, 0);
  }

  /** Where the longest tail of `text` that spells the secret's first MIN_CUT_PREFIX_CHARS or more characters starts. */
  cutTailStart(text: string): number | undefined {
    for (let start = Math.max(0, text.length - this.maxLength); start < text.length; start += 1) {
      if (this.beginsSecret(text, start, 0)) return start;
    }
    return undefined;
  }

  /** Whether text[at…] spells the secret from character `index` on, ending inside it (possibly mid-form). */
  private beginsSecret(text: string, at: number, index: number): boolean {
    if (at === text.length) return index >= MIN_CUT_PREFIX_CHARS;
    if (index >= this.forms.length) return false;
    const rest = text.slice(at);
    for (const form of this.forms[index]!) {
      if (text.startsWith(form, at)) {
        if (this.beginsSecret(text, at + form.length, index + 1)) return true;
      } else if (form.startsWith(rest) && index >= MIN_CUT_PREFIX_CHARS) {
        return true;
      }
    }
    return false;
  }
}

/**
 * `text` with every secret replaced by `[redacted]`, in any of the forms an upstream may echo it
 * in. With `cut`, a tail spelling the start of a secret (at least MIN_CUT_PREFIX_CHARS characters)
 * is redacted as well. Empty and absent secrets are ignored.
 */
export function redactSecrets(text: string, secrets: Iterable<string | undefined>, options: RedactOptions = {}): string {
  const spellings = [...new Set(secrets)]
    .filter((secret): secret is string => typeof secret === 'string' && secret !== '')
    // A secret that contains another is redacted whole before the shorter one is looked for.
    .sort((a, b) => b.length - a.length)
    .map((secret) => new SecretSpelling(secret));
  let result = text;
  for (const spelling of spellings) result = result.replace(spelling.anywhere, REDACTED);
  if (!options.cut) return result;
  const starts = spellings.map((spelling) => spelling.cutTailStart(result)).filter((at) => at !== undefined);
  return starts.length === 0 ? result : result.slice(0, Math.min(...starts)) + REDACTED;
}

/** Replaces every occurrence of `secret`, in any encoded form (an empty or absent secret leaves the text as it is). */
export function redactSecret(text: string, secret: string | undefined): string {
  return redactSecrets(text, [secret]);
}
