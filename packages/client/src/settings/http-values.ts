/**
 * What an HTTP header may carry, checked when settings are built so a bad value is a SettingsError
 * naming its key (never a raw undici error at the first call). Problems never quote the value: it
 * may be a secret.
 */

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible Latin-1 characters, space and tab; no CR, LF, NUL or other controls, nothing above U+00FF. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers the HTTP layer sets itself. */
export const RESERVED_HEADERS: readonly string[] = ['content-type', 'content-length', 'host'];

export function headerNameProblem(name: string): string | undefined {
  if (!TOKEN.test(name)) return 'is not a legal HTTP header name';
  if (RESERVED_HEADERS.includes(name.toLowerCase())) return `may not set '${name.toLowerCase()}' (the HTTP layer sets it)`;
  return undefined;
}

export function headerValueProblem(value: string): string | undefined {
  return FIELD_VALUE.test(value) && value.trim() === value ? undefined : 'is not a legal HTTP header value (control characters, line breaks, characters beyond Latin-1 or edge whitespace); the value is not shown';
}
