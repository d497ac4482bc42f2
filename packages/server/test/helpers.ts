import { startMockUpstream, type MockScript, type MockUpstream } from '@pgw/mock-upstream';
import OpenAI from 'openai';
import type { GatewaySubscriber } from '@pgw/client';
import { GatewayServer, type ConsolePanel, type ListenOptions } from '../src/index.js';
import { responsesCheckingFetch } from './conformance/responses.js';

export interface Harness {
  mock: MockUpstream;
  server: GatewayServer;
  url: string;
  openai: (apiKey?: string) => OpenAI;
  close(): Promise<void>;
}

/** Scope LLM (chat) and EMBED (embeddings) on one mock source `main`, plus any keys of `env`. */
export function scopeEnv(mock: MockUpstream, source = 'main'): Record<string, string> {
  return {
    LLM__SOURCE__MAIN__BASE_URL: mock.baseUrl(source),
    LLM__SOURCE__MAIN__MODEL: 'gpt-4o-mini',
    LLM__RETRY__BACKOFF_BASE_S: '0.01',
    LLM__RETRY__BACKOFF_MAX_S: '0.05',
    EMBED__SOURCE__MAIN__BASE_URL: mock.baseUrl(source),
    EMBED__SOURCE__MAIN__MODEL: 'text-embedding-3-small',
    PGW_CACHE_BACKEND: 'none',
  };
}

export interface HarnessOptions {
  /** The server's log lines (access log, faults); default: dropped. */
  log?: (line: string) => void;
  /** Runs before `listen` (routes may be added then). */
  beforeListen?: (server: GatewayServer) => void;
  listen?: ListenOptions;
  consolePanels?: readonly ConsolePanel[];
  /** The server's clock of stored keys (creation, expiry, rotation). */
  now?: () => number;
}

export async function startHarness(
  script: MockScript = { sources: { main: {} } },
  env: Record<string, string> = {},
  subscribers: readonly GatewaySubscriber[] = [],
  options: HarnessOptions = {},
): Promise<Harness> {
  const mock = await startMockUpstream({ port: 0, script });
  const server = new GatewayServer({ env: { ...scopeEnv(mock), ...env }, subscribers, warn: () => {}, log: options.log ?? (() => {}), consolePanels: options.consolePanels ?? [], ...(options.now !== undefined && { now: options.now }) });
  options.beforeListen?.(server);
  const url = await server.listen({ port: 0, ...options.listen });
  return {
    mock,
    server,
    url,
    openai: (apiKey = 'unused') => new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0, fetch: responsesCheckingFetch({ requests: 'checked' }) }),
    async close() {
      await server.drain(0);
      await mock.close();
    },
  };
}
