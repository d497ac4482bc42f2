/**
 * Health probe of one source: is its server reachable (an HTTP answer to `GET {baseUrl}/models` other
 * than 404 — a 404 means the base URL leads to no OpenAI-compatible API, e.g. a wrong path prefix),
 * and does its model answer a 1-token chat (or a one-text embedding) through the governed client?
 * The probe runs on a copy of the scope's settings narrowed to this source, one attempt, memory
 * backends, no cache and no telemetry: a health check is not workload and must not need Redis.
 */
import { EmbeddingClient, GatewayClient, GatewayUnavailableError } from '@pgw/client';
import type { EmbeddingSettings, GatewaySettings } from '@pgw/client';
import type { SourceConfig } from '@pgw/core';
import { warnOnStderr } from '../warn.js';

export type ProbeKind = 'chat' | 'embed';

export interface ProbeResult {
  source: string;
  model: string;
  reachable: boolean;
  /** `HTTP 404`, `ECONNREFUSED`, `timeout` … */
  reachDetail: string;
  answered: boolean;
  /** `ok`, `ok (dim 1024)` or why the model did not answer. */
  answerDetail: string;
  latencyMs?: number;
}

export const isHealthy = (result: ProbeResult): boolean => result.reachable && result.answered;

export async function probeSource(
  settings: GatewaySettings | EmbeddingSettings,
  source: SourceConfig,
  kind: ProbeKind,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<ProbeResult> {
  const [reach, answer] = await Promise.all([
    reachability(source, timeoutMs, signal),
    modelAnswer(narrowTo(settings, source), kind, timeoutMs, signal),
  ]);
  return { source: source.name, model: source.model, ...reach, ...answer };
}

function narrowTo<T extends GatewaySettings>(settings: T, source: SourceConfig): T {
  return {
    ...settings,
    sources: [source],
    retry: { ...settings.retry, maxAttempts: 1 },
    backends: { ...settings.backends, limiter: 'memory', breaker: 'memory', cache: 'none', telemetry: 'none' },
  };
}

async function reachability(source: SourceConfig, timeoutMs: number, signal: AbortSignal) {
  const controller = new AbortController();
  const stop = () => controller.abort();
  const timer = setTimeout(stop, timeoutMs);
  signal.addEventListener('abort', stop, { once: true });
  try {
    const response = await fetch(modelsUrl(source), { signal: controller.signal, headers: requestHeaders(source) });
    await response.body?.cancel();
    return { reachable: response.status !== 404, reachDetail: `HTTP ${response.status}` };
  } catch (error) {
    signal.throwIfAborted();
    // fetch rejects with TypeError('fetch failed'); the network error is its cause.
    const cause = (error as Error).cause as { code?: unknown; message?: unknown } | undefined;
    const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : 'failed';
    return { reachable: false, reachDetail: controller.signal.aborted ? 'timeout' : detail };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
  }
}

/** `{baseUrl}/models` with the source's query parameters (a relay may route by them). */
function modelsUrl(source: SourceConfig): URL {
  const url = new URL(`${(source.baseUrl ?? '').replace(/\/+$/, '')}/models`);
  for (const [name, value] of Object.entries(source.query ?? {})) url.searchParams.set(name, value);
  return url;
}

/** The source's own headers and its key in its key header, as its model sends them. */
function requestHeaders(source: SourceConfig): Record<string, string> {
  const keyHeader = source.apiKeyHeader ?? 'authorization';
  const key = source.apiKey === undefined ? {} : { [keyHeader]: keyHeader === 'authorization' ? `Bearer ${source.apiKey}` : source.apiKey };
  return { ...source.headers, ...key };
}

async function modelAnswer(
  settings: GatewaySettings | EmbeddingSettings,
  kind: ProbeKind,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Pick<ProbeResult, 'answered' | 'answerDetail' | 'latencyMs'>> {
  const options = { warn: warnOnStderr, callDeadlineMs: timeoutMs };
  try {
    if (kind === 'embed') {
      const client = await EmbeddingClient.fromSettings(settings as EmbeddingSettings, options);
      try {
        const response = await client.embed(['ping'], { signal });
        const dim = response.vectors[0]?.length ?? 0;
        return { answered: true, answerDetail: `ok (dim ${dim})`, latencyMs: response.callStats.totalLatencyMs };
      } finally {
        await client.close();
      }
    }
    const client = await GatewayClient.fromSettings(settings, { ...options, cache: null });
    try {
      const response = await client.chat([{ role: 'user', content: 'ping' }], { signal, sampling: { max_tokens: 1 } });
      return { answered: true, answerDetail: 'ok', latencyMs: response.callStats.totalLatencyMs };
    } finally {
      await client.close();
    }
  } catch (error) {
    signal.throwIfAborted();
    return { answered: false, answerDetail: failureReason(error, settings.sources[0]!.name) };
  }
}

/** The failed attempt's own error when the gateway carries it (the probe has a single source and attempt). */
function failureReason(error: unknown, source: string): string {
  if (!(error instanceof Error)) return String(error);
  if (error.cause instanceof Error) return `${error.cause.name}: ${error.cause.message}`;
  if (error instanceof GatewayUnavailableError) return error.perSourceReasons[source] ?? `${error.name}: ${error.message}`;
  return `${error.name}: ${error.message}`;
}
