// STUB — being implemented (issue 2). Signatures are the contract.
/** Folds whitespace and truncates to `max` characters keeping head and tail. */
export function summarizeBody(text: string, max = 2048): string {
  return text.slice(0, max);
}
export type HeaderBag = Headers | Record<string, string | string[] | undefined>;
/** Retry hint in ms from `retry-after-ms` / `Retry-After` (seconds or HTTP-date), or undefined. */
export function parseRetryAfter(
  headers: HeaderBag,
  options: { sourceName: string; warn: (message: string) => void; now?: () => number },
): number | undefined {
  void headers;
  void options;
  return undefined;
}
/** Rough token estimate of a text when the upstream reports no usage. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
