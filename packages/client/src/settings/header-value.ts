/**
 * What an HTTP header value may hold: tab, visible ASCII, space, and Latin-1 (obs-text). A value
 * outside it makes the HTTP client throw on every request, so settings refuse it up front. The
 * problem never quotes the value: header values are secrets more often than not.
 */

const NOT_FIELD_CONTENT = /[^\t\x20-\x7E\x80-\xFF]/;

/** Why `value` cannot be sent as a header value, or undefined when it can. */
export function headerValueProblem(value: string): string | undefined {
  const match = NOT_FIELD_CONTENT.exec(value);
  if (match === null) return undefined;
  const code = match[0].charCodeAt(0);
  const what =
    code === 0x0a || code === 0x0d
      ? 'a line break'
      : code < 0x20 || code === 0x7f
        ? 'a control character'
        : 'a character outside Latin-1';
  return `must be usable as an HTTP header value: it has ${what} at position ${match.index + 1} (the value is not shown)`;
}
