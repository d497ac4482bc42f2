/**
 * Secret redaction for upstream text a provider keeps (error bodies, messages). The failure
 * classification itself (HTTP status, network codes, in-band errors) lives in `@pgw/http`.
 */

/** What replaces a secret in upstream text. */
const REDACTED = '[redacted]';

/** Replaces every occurrence of `secret` (an empty or absent secret leaves the text as it is). */
export function redactSecret(text: string, secret: string | undefined): string {
  return secret ? text.replaceAll(secret, REDACTED) : text;
}
