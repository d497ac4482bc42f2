/** The mock's sources for every benchmark: one script, so one mock child serves the whole run. */
import type { MockScript } from '@pgw/mock-upstream';

/** The model name every contender sends. */
export const MODEL = 'bench-model';

/** The one message every chat contender sends (same body shape for all). */
export const MESSAGES = [{ role: 'user' as const, content: 'Reply with a short greeting.' }];

/** Tokens of each benchmark stream (docs/architecture.md#performance: 200-token streams). */
export const STREAM_TOKENS = 200;

const CHAT_ANSWER = 'Hello! This is a short greeting from the benchmark mock upstream, answered at once.';
const STREAM_ANSWER = Array.from({ length: STREAM_TOKENS }, (_, i) => `tok${i}`).join(' ');

export const SOURCES = {
  /** Answers every chat at once (zero upstream latency). */
  chat: 'chat',
  /** Streams a 200-token answer, zero gap between tokens. */
  stream: 'stream',
  /** Never answers: holds calls in flight until they are aborted. */
  hang: 'hang',
  /** Answers after 20 ms, as a fast real upstream does (the batch bench). */
  slow: 'slow',
} as const;

const SLOW_LATENCY_MS = 20;

export const MOCK_SCRIPT: MockScript = {
  sources: {
    [SOURCES.chat]: { content: CHAT_ANSWER },
    [SOURCES.stream]: { content: STREAM_ANSWER },
    [SOURCES.hang]: { otherwise: { kind: 'hang' } },
    [SOURCES.slow]: { content: CHAT_ANSWER, latencyMs: SLOW_LATENCY_MS },
  },
};

export const EXPECTED_CHAT_ANSWER = CHAT_ANSWER;
export const EXPECTED_STREAM_ANSWER = STREAM_ANSWER;
