import type { ChatRequest, ChatResult, EmbedRequest, EmbedResult, StreamAttemptContext } from '@pgw/core';
import { recordingAttempt, type RecordingAttempt } from '@pgw/testkit';
import { createAgent } from '@pgw/http';
import { startMockUpstream, type MockUpstream, type SourceScript } from '@pgw/mock-upstream';
import { afterAll, beforeAll } from 'vitest';
import { openaiCompatible, type OpenAICompatibleOptions } from '../src/index.js';

/** A mock source: its name, the attempt timeout its calls get, and the options of models pointing at it. */
export interface ScriptedSource {
  name: string;
  timeoutMs: number;
  options: OpenAICompatibleOptions;
}

export type SourceOverrides = Partial<OpenAICompatibleOptions> & { name?: string; timeoutMs?: number };

export function sourceOptions(overrides: SourceOverrides = {}): ScriptedSource {
  const { name = 'good', timeoutMs = 10_000, ...options } = overrides;
  return { name, timeoutMs, options: { baseUrl: 'http://127.0.0.1:9/good/v1', model: 'mock-model', ...options } };
}

/** An attempt context that records usage and deltas (the harness fills in the source's name and timeout). */
export const attemptContext = (signal?: AbortSignal): RecordingAttempt => recordingAttempt(signal);

let sourceSeq = 0;

/** A fresh mock source playing `script`, and the options of models pointing at it. */
export function scriptedSource(mock: MockUpstream, script: SourceScript, overrides: SourceOverrides = {}): ScriptedSource {
  const name = `src${++sourceSeq}`;
  mock.setSource(name, script);
  return sourceOptions({ name, baseUrl: mock.baseUrl(name), ...overrides });
}

/**
 * Models made by `openaiCompatible` over one injected Agent (closed by `close()`): `chat` with
 * `stream: true` runs `model.stream` on a streaming model, without it `generate` on a JSON one.
 */
export function harness(shared: Partial<OpenAICompatibleOptions> = {}) {
  const dispatcher = createAgent();
  const attempt = (source: ScriptedSource, ctx: StreamAttemptContext): StreamAttemptContext =>
    Object.assign(ctx, { sourceName: source.name, timeoutMs: source.timeoutMs });
  return {
    model: (source: ScriptedSource, stream: boolean) => openaiCompatible({ ...source.options, ...shared, dispatcher, stream }),
    chat(source: ScriptedSource, request: ChatRequest & { stream?: boolean }, ctx: StreamAttemptContext): Promise<ChatResult> {
      const { stream = false, ...rest } = request;
      const model = this.model(source, stream);
      return stream ? model.stream(rest, attempt(source, ctx)) : model.generate(rest, attempt(source, ctx));
    },
    embed(source: ScriptedSource, request: EmbedRequest, ctx: StreamAttemptContext): Promise<EmbedResult> {
      return this.model(source, false).embed(request, attempt(source, ctx));
    },
    close: () => dispatcher.close(),
  };
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

/** A mock upstream and a harness for the whole test file: started before its tests, closed after. */
export function mockAndHarness(): { readonly mock: MockUpstream; readonly transport: ReturnType<typeof harness> } {
  let started: { mock: MockUpstream; transport: ReturnType<typeof harness> } | undefined;
  beforeAll(async () => {
    started = { mock: await startMockUpstream({ script: { sources: {} } }), transport: harness() };
  });
  afterAll(async () => {
    await started?.transport.close();
    await started?.mock.close();
  });
  const get = () => {
    if (started === undefined) throw new Error('the mock upstream is not started');
    return started;
  };
  return {
    get mock() {
      return get().mock;
    },
    get transport() {
      return get().transport;
    },
  };
}
