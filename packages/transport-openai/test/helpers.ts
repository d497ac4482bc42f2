import type { AttemptContext, ChatDelta, SourceConfig, Usage } from '@pgw/core';
import type { MockUpstream, SourceScript } from '@pgw/mock-upstream';

export function sourceConfig(overrides: Partial<SourceConfig> = {}): SourceConfig {
  return {
    name: 'good',
    baseUrl: 'http://127.0.0.1:9/good/v1',
    model: 'mock-model',
    provider: 'openai',
    rpm: 0,
    tpm: 0,
    maxConcurrency: 0,
    estTokens: 100,
    timeoutMs: 10_000,
    weight: 1,
    extraBody: {},
    ...overrides,
  };
}

/** An AttemptContext that records what the transport reports through it. */
export function attemptContext(signal: AbortSignal = new AbortController().signal): AttemptContext & {
  usages: Usage[];
  deltas: ChatDelta[];
} {
  const usages: Usage[] = [];
  const deltas: ChatDelta[] = [];
  return {
    signal,
    callId: 'call-1',
    logicalCallId: 'logical-1',
    usages,
    deltas,
    onUsage: (usage) => usages.push(usage),
    onDelta: (delta) => deltas.push(delta),
  };
}

let sourceSeq = 0;

/** A fresh mock source playing `script`, and the SourceConfig pointing at it. */
export function scriptedSource(mock: MockUpstream, script: SourceScript, overrides: Partial<SourceConfig> = {}): SourceConfig {
  const name = `src${++sourceSeq}`;
  mock.setSource(name, script);
  return sourceConfig({ name, baseUrl: mock.baseUrl(name), ...overrides });
}

/** What `run` threw (fails the test if it did not throw). */
export async function thrown(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure, got a success');
}
