/** The demo's upstream: the local mock with a steady, a flaky, a revoked and a slow source, a tool caller and an embedder. */
import { startMockUpstream, type MockUpstream, type MockScript } from '@pgw/mock-upstream';

export const DEMO_SCRIPT: MockScript = {
  sources: {
    steady: { latencyMs: 15, interTokenMs: 2, content: 'The steady source answers promptly.' },
    flaky: {
      latencyMs: 10,
      interTokenMs: 2,
      content: 'The flaky source answered this time.',
      failureRate: 0.25,
      failureSteps: [
        { kind: 'rate_limit', retryAfter: '0.2' },
        { kind: 'status', status: 500, body: { error: { message: 'upstream overloaded' } } },
        { kind: 'status', status: 503 },
        { kind: 'truncate', afterTokens: 2 },
      ],
    },
    // Its credentials are refused: the breaker opens at once and calls fail over.
    revoked: { otherwise: { kind: 'status', status: 401, body: { error: { message: 'invalid api key' } } } },
    slow: { latencyMs: 250, ttftMs: 80, interTokenMs: 10, content: 'The slow source takes its time, but answers.' },
    embedder: { latencyMs: 5, embeddingDim: 16 },
    // One tool round: the first answer asks for the weather tool, the next (with its result) answers.
    toolsmith: {
      latencyMs: 5,
      steps: [{ kind: 'tool_calls', calls: [{ id: 'call_weather', name: 'weather', arguments: { city: 'Paris' } }] }],
      content: 'It is 21 °C and sunny in Paris: a light jacket will do.',
    },
  },
};

/** Env keys that point the LLM, TOOLS and EMBED scopes at the mock, on embedded defaults (memory + SQLite). */
export function demoEnv(mock: MockUpstream, sqlitePath: string): Record<string, string> {
  const source = (name: string, model: string, extra: Record<string, string> = {}) => {
    const prefix = `LLM__SOURCE__${name.toUpperCase()}__`;
    return {
      [`${prefix}BASE_URL`]: mock.baseUrl(name),
      [`${prefix}API_KEY`]: `demo-key-${name}`,
      [`${prefix}MODEL`]: model,
      [`${prefix}RPM`]: '6000',
      [`${prefix}MAX_CONCURRENCY`]: '16',
      [`${prefix}TIMEOUT_S`]: '10',
      ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [`${prefix}${k}`, v])),
    };
  };
  return {
    ...source('steady', 'gpt-4o-mini'),
    ...source('flaky', 'qwen-plus'),
    ...source('revoked', 'gpt-4.1-mini'),
    ...source('slow', 'deepseek-chat', { MAX_CONCURRENCY: '4' }),
    // Round robin spreads the load, so every source's behaviour shows in the summary.
    LLM__SELECTOR: 'round_robin',
    LLM__MAX_ATTEMPTS: '4',
    LLM__RETRY__BACKOFF_BASE_S: '0.05',
    LLM__RETRY__BACKOFF_MAX_S: '0.5',
    LLM__BREAKER__COOLDOWN_S: '1',
    LLM__BREAKER__FAILURE_RATE: '0.7',
    LLM__CALL_DEADLINE_S: '20',
    TOOLS__SOURCE__TOOLSMITH__BASE_URL: mock.baseUrl('toolsmith'),
    TOOLS__SOURCE__TOOLSMITH__API_KEY: 'demo-key-toolsmith',
    TOOLS__SOURCE__TOOLSMITH__MODEL: 'gpt-4o-mini',
    TOOLS__CALL_DEADLINE_S: '10',
    EMBED__SOURCE__EMBEDDER__BASE_URL: mock.baseUrl('embedder'),
    EMBED__SOURCE__EMBEDDER__API_KEY: 'demo-key-embedder',
    EMBED__SOURCE__EMBEDDER__MODEL: 'text-embedding-3-small',
    EMBED__BATCH_SIZE: '32',
    EMBED__EXPECTED_DIM: '16',
    EMBED__NORMALIZE: 'true',
    PGW_LIMITER_BACKEND: 'memory',
    PGW_BREAKER_BACKEND: 'memory',
    PGW_CACHE_BACKEND: 'memory',
    PGW_TELEMETRY_BACKEND: 'sqlite',
    PGW_SQLITE_PATH: sqlitePath,
  };
}

export function startDemoUpstream(): Promise<MockUpstream> {
  return startMockUpstream({ port: 0, script: DEMO_SCRIPT, seed: 7 });
}
