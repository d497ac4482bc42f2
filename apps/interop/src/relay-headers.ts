/**
 * The routing headers a Portkey-style relay needs to forward an OpenAI-compatible request to a
 * self-hosted upstream: provider `openai` at `baseUrl` (e.g. `http://127.0.0.1:PORT/good/v1`).
 * Loopback custom hosts are trusted by default (Portkey's TRUSTED_CUSTOM_HOSTS).
 */
export function portkeyRouting(baseUrl: string): Record<string, string> {
  return { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': baseUrl };
}

/** The same for the `@llmops/gateway` fork, which renamed the header prefix. */
export function llmopsRouting(baseUrl: string): Record<string, string> {
  return { 'x-llmops-provider': 'openai', 'x-llmops-custom-host': baseUrl };
}
