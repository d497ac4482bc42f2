/**
 * A small `.env` parser: `KEY=VALUE`, `export ` prefix, `#` comments, single quotes (literal),
 * double quotes (with \n \r \t \" \\ escapes), both may span lines. No `${VAR}` expansion.
 * An unquoted value ends at a `#` that starts it or follows whitespace (`http://h/#frag` is kept).
 * A line it cannot read is an error naming the file and line: a typo must not vanish silently.
 */
import { readFileSync } from 'node:fs';
import { SettingsError } from './settings-error.js';

const ASSIGNMENT = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/s;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

export function parseDotenv(text: string, origin = '.env'): Record<string, string> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const values: Record<string, string> = {};
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = ASSIGNMENT.exec(line);
    if (!match) {
      throw new SettingsError({ key: `${origin}:${index + 1}`, problem: 'expected KEY=VALUE' });
    }
    const [, key, rest] = match as unknown as [string, string, string];
    const quote = rest[0];
    if (quote !== '"' && quote !== "'") {
      values[key] = rest.replace(/(^|\s)#.*$/, '').trim();
      continue;
    }
    const start = index;
    let body = rest.slice(1);
    let end = closingQuote(body, quote);
    while (end < 0 && index + 1 < lines.length) {
      index += 1;
      body += `\n${lines[index]!}`;
      end = closingQuote(body, quote);
    }
    if (end < 0) throw new SettingsError({ key, problem: `unterminated ${quote} quote starting at ${origin}:${start + 1}` });
    const tail = body.slice(end + 1).trim();
    if (tail !== '' && !tail.startsWith('#')) {
      throw new SettingsError({ key, problem: `unexpected text after the closing quote at ${origin}:${index + 1}` });
    }
    const inner = body.slice(0, end);
    values[key] = quote === "'" ? inner : inner.replace(/\\(.)/g, (escape, char: string) => ESCAPES[char] ?? escape);
  }
  return values;
}

function closingQuote(body: string, quote: string): number {
  for (let i = 0; i < body.length; i += 1) {
    if (quote === '"' && body[i] === '\\') i += 1;
    else if (body[i] === quote) return i;
  }
  return -1;
}

/** Reads and parses an env file; a file that cannot be read is an error naming its path. */
export function readEnvFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new SettingsError({ key: 'envFile', problem: `cannot read ${path} (${code})`, cause: error });
  }
  return parseDotenv(text, path);
}
