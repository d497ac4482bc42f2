import { redactSecret } from '@pgw/core';

/** Redacts every secret of an endpoint (its API key and each header value) from upstream text. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return secrets.reduce((redacted, secret) => redactSecret(redacted, secret), text);
}
