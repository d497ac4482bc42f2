/** The clients' own logic with full injection: argument validation before a call starts, deadlines, lifecycle. */
import { getEventListeners } from 'node:events';
import { InMemoryGovernor } from '@pgw/backend-memory';
import * as core from '@pgw/core';
import { providerProfile } from '@pgw/core/internal';
import type { AttemptContext, ChatModel, ChatRequest, ChatResult, EmbeddingModel, OcrModel } from '@pgw/core';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  CallDeadlineExceeded,
  EmbeddingClient,
  GatewayClient,
  OcrClient,
  RequestRejectedError,
  embeddingSettings,
  gatewaySettings,
  ocrSettings,
} from '../src/index.js';
import { MemoryRecorder } from '@pgw/core';
import type { GatewaySettings } from '../src/index.js';

type Generate = (request: ChatRequest, attempt: AttemptContext) => Promise<ChatResult>;

/** A user-written chat model (no provider factory): what full injection takes. */
function chatModel(generate: Generate, profile: string) {
  return {
    specificationVersion: core.MODEL_SPECIFICATION_VERSION,
    provider: 'fake',
    modelId: 'm',
    capabilities: { jsonSchema: true, streaming: false },
    managedKeys: providerProfile(profile).managedKeys,
    generate: vi.fn(generate),
    close: vi.fn(async () => {}),
  } satisfies ChatModel;
}

function chatSettings(generate: Generate) {
  return gatewaySettings({
    scope: 'unit',
    sources: [
      { name: 'a', model: chatModel(generate, 'openai') },
      { name: 'b', model: chatModel(generate, 'qwen') },
    ],
    selector: 'ordered',
  });
}

const OK: ChatResult = {
  content: '{"answer": 42}',
  model: 'm',
  usage: { promptTokens: 1, completionTokens: 2, usageSource: 'measured' },
  thinkingObservation: 'unknown',
};

function governance(s: GatewaySettings) {
  return {
    governor: new InMemoryGovernor({
      scope: s.scope,
      sources: Object.fromEntries(s.sources.map((x) => [x.name, { rpm: 0, tpm: 0, maxConcurrency: 0 }])),
      global: s.global,
      leaseTtlMs: s.leaseTtlMs,
      policy: s.breaker,
    }),
  };
}

function chatClient(generate: Generate = async () => OK, extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) {
  const settings = chatSettings(generate);
  const model = settings.sources[0]!.instance as ReturnType<typeof chatModel>;
  const recorder = new MemoryRecorder();
  const client = new GatewayClient({ settings, ...governance(settings), recorder, warn: () => {}, ...extra });
  return { client, model, recorder, settings };
}

const HI = [{ role: 'user' as const, content: 'hi' }];

describe('GatewayClient.chat', () => {
  it('answers through the pipeline with call stats, and passes sampling and effort on', async () => {
    const { client, model } = chatClient();
    const response = await client.chat(HI, { sampling: { temperature: 0.2 }, reasoningEffort: 'HIGH', structured: z.object({ answer: z.number() }) });
    expect(response).toMatchObject({ content: OK.content, parsed: { answer: 42 }, source: 'a', cached: false, callStats: { attempts: 1 } });
    const request = model.generate.mock.calls[0]![0];
    expect(request).toMatchObject({ sampling: { temperature: 0.2 }, reasoningEffort: 'high' });
  });

  it.each([
    ['messages not an array', () => [undefined, {}], TypeError, /chat\(messages\)/],
    ['empty messages', () => [[], {}], RangeError, /chat\(messages\)/],
    ['an unknown option', () => [HI, { temprature: 1 }], TypeError, /chat\(options\) has no option 'temprature'/],
    ['a key managed by the model of source a', () => [HI, { sampling: { reasoning_effort: 'low' } }], RangeError, /chat\(sampling\) may not set 'reasoning_effort': it is managed by the model of source 'a'/],
    ['a key managed by the model of source b', () => [HI, { sampling: { enable_thinking: true } }], RangeError, /'enable_thinking': it is managed by the model of source 'b'/],
    ['keys managed by both sources: the first source is named', () => [HI, { sampling: { enable_thinking: true, reasoning_effort: 'low' } }], RangeError, /'reasoning_effort': it is managed by the model of source 'a'/],
    ['non-JSON sampling', () => [HI, { sampling: { t: () => 1 } }], TypeError, /chat\(sampling\)\.t/],
    ['an unknown effort', () => [HI, { reasoningEffort: 'extreme' }], RangeError, /chat\(reasoningEffort\)/],
    ['an illegal deadline', () => [HI, { callDeadlineMs: 0 }], RangeError, /chat\(callDeadlineMs\)/],
    ['a string deadline', () => [HI, { callDeadlineMs: '100' }], RangeError, /chat\(callDeadlineMs\)/],
    ['a bad tenantId', () => [HI, { tenantId: '' }], TypeError, /chat\(tenantId\)/],
    ['a non-serialisable meta', () => [HI, { meta: { when: new Date() } }], TypeError, /chat\(meta\)\.when/],
    ['a structured option that is no schema', () => [HI, { structured: { type: 'object' } }], TypeError, /chat\(structured\)/],
    ['a non-boolean cacheBypass', () => [HI, { cacheBypass: 'yes' }], TypeError, /chat\(cacheBypass\)/],
    ['a signal that is no AbortSignal', () => [HI, { signal: {} }], TypeError, /chat\(signal\)/],
  ] as const)('refuses %s before the call starts (no attempt, no row)', async (_label, args, type, pattern) => {
    const { client, model, recorder } = chatClient();
    const [messages, options] = args();
    const call = client.chat(messages as never, options as never);
    await expect(call).rejects.toThrow(type);
    await expect(call).rejects.toThrow(pattern);
    expect(model.generate).not.toHaveBeenCalled();
    expect(recorder.rows).toHaveLength(0);
  });

  it('an already aborted signal ends the call before it starts, as AbortError with the reason', async () => {
    const { client, model, recorder } = chatClient();
    const reason = new Error('gone');
    await expect(client.chat(HI, { signal: AbortSignal.abort(reason) })).rejects.toMatchObject({ name: 'AbortError', cause: reason });
    expect(model.generate).not.toHaveBeenCalled();
    expect(recorder.rows).toHaveLength(0);
  });

  it('a per-call deadline applies; an unset one inherits the client deadline', async () => {
    const hang: Generate = (_r, ctx) =>
      new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
    const { client } = chatClient(hang, { callDeadlineMs: 40 });
    await expect(client.chat(HI)).rejects.toMatchObject({ deadlineMs: 40 });
    await expect(client.chat(HI, { callDeadlineMs: 60 })).rejects.toBeInstanceOf(CallDeadlineExceeded);
    await expect(client.chat(HI, { callDeadlineMs: 60 })).rejects.toMatchObject({ deadlineMs: 60 });
  });

  it('a request the upstream rejects reaches the caller as RequestRejectedError with one terminal row', async () => {
    const { client, recorder } = chatClient(async (_request, attempt) => {
      throw new RequestRejectedError({ message: 'bad request', sourceName: attempt.sourceName, statusCode: 400 });
    });
    await expect(client.chat(HI)).rejects.toBeInstanceOf(RequestRejectedError);
    expect(recorder.rows.filter((r) => r.eventKind === 'terminal_failure')).toHaveLength(1);
  });

  it('validates the injected deadline and the parts at construction', () => {
    const settings = chatSettings(async () => OK);
    expect(() => chatClient(undefined, { callDeadlineMs: -1 })).toThrow(/GatewayClient\(callDeadlineMs\)/);
    expect(() => new GatewayClient({ settings } as never)).toThrow(/GatewayClient\(parts\.governor\) is required/);
    expect(() => new GatewayClient({ settings: { ...settings, scope: 'bad scope' }, ...governance(settings) })).toThrow(/scope/);
  });

  it('full injection takes sources with models: an endpoint source needs fromSettings, a model lacking an operation is named', () => {
    const endpoint = gatewaySettings({ scope: 'unit', sources: [{ name: 'a', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }] });
    expect(() => new GatewayClient({ settings: endpoint, ...governance(endpoint) })).toThrow(
      /GatewayClient\(parts\.settings\.sources\[0\]\) \('a'\) describes an endpoint: build the client with GatewayClient\.fromSettings or \.fromEnv/,
    );
    const { generate: _generate, ...noGenerate } = chatModel(async () => OK, 'openai');
    const lacking = gatewaySettings({ scope: 'unit', sources: [{ name: 'a', model: noGenerate as never }] });
    expect(() => new GatewayClient({ settings: lacking, ...governance(lacking) })).toThrow(
      'GatewayClient(parts.settings.sources[0].model) (fake m) lacks generate',
    );
  });

  it('a source given a model takes no endpoint field: it would be ignored', () => {
    expect(() =>
      gatewaySettings({ scope: 'unit', sources: [{ name: 'a', model: chatModel(async () => OK, 'openai'), baseUrl: 'http://127.0.0.1:9/v1' }] }),
    ).toThrow(/LLM__SOURCE__A__BASE_URL|UNIT__SOURCE__A__BASE_URL.*describes an endpoint, but the source was given a model instance/);
    expect(() => gatewaySettings({ scope: 'unit', sources: [{ name: 'a', model: 'm' }] })).toThrow(/UNIT__SOURCE__A__BASE_URL.*required/);
  });

  it('a signal shared by 10,000 calls in a row holds as many listeners in the last call as in the first, none once it returned', async () => {
    const shared = new AbortController();
    const during: number[] = [];
    const { client } = chatClient(
      async () => {
        during.push(getEventListeners(shared.signal, 'abort').length);
        return OK;
      },
      { recorder: new core.NoopRecorder() },
    );
    for (let i = 0; i < 10_000; i += 1) await client.chat(HI, { signal: shared.signal });
    expect(new Set(during)).toEqual(new Set([during[0]]));
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('a closed client refuses calls; close is idempotent and closes nothing injected', async () => {
    const { client, model } = chatClient();
    await Promise.all([client.close(), client[Symbol.asyncDispose]()]);
    await expect(client.chat(HI)).rejects.toThrow(/closed/);
    expect(model.close).not.toHaveBeenCalled();
  });
});

describe('EmbeddingClient.embed', () => {
  function embedClient() {
    const transport = {
      specificationVersion: core.MODEL_SPECIFICATION_VERSION,
      provider: 'fake',
      modelId: 'e',
      embed: vi.fn(async (request: { texts: string[] }) => ({
        vectors: request.texts.map(() => [1, 0]),
        model: 'e',
        usage: { promptTokens: 1, completionTokens: 0, usageSource: 'measured' as const },
      })),
    } satisfies EmbeddingModel;
    const embedSettings = embeddingSettings({ scope: 'unit_e', sources: [{ name: 'e', model: transport }], batchSize: 2 });
    const recorder = new MemoryRecorder();
    return { client: new EmbeddingClient({ settings: embedSettings, ...governance(embedSettings), recorder }), transport, recorder };
  }

  it('refuses a bare string and non-string items before the call', async () => {
    const { client, transport, recorder } = embedClient();
    await expect(client.embed('one text' as never)).rejects.toThrow(/wrap a single text as \[text\]/);
    await expect(client.embed(['a', 2] as never)).rejects.toThrow(/embed\(texts\)\[1\]/);
    await expect(client.embed(['a'], { callDeadlineMs: Number.NaN })).rejects.toThrow(/embed\(callDeadlineMs\)/);
    await expect(client.embed(['a'], { structured: z.string() } as never)).rejects.toThrow(/embed\(options\) has no option 'structured'/);
    expect(transport.embed).not.toHaveBeenCalled();
    expect(recorder.rows).toHaveLength(0);
  });

  it('batches by BATCH_SIZE; an empty input makes no attempt', async () => {
    const { client, transport } = embedClient();
    expect((await client.embed(['a', 'b', 'c'])).vectors).toHaveLength(3);
    expect(transport.embed).toHaveBeenCalledTimes(2);
    expect((await client.embed([])).callStats.attempts).toBe(0);
    expect(transport.embed).toHaveBeenCalledTimes(2);
  });
});

describe('OcrClient', () => {
  function ocrClient() {
    const transport = {
      specificationVersion: core.MODEL_SPECIFICATION_VERSION,
      provider: 'fake',
      modelId: 'monkeyocr',
      recognizeText: vi.fn(async (_image: Uint8Array, _options: object) => ({ text: 't' })),
      parseLayout: vi.fn(async () => ({ markdown: '#', elements: [] })),
      checkHealth: vi.fn(async () => true),
    } satisfies OcrModel;
    const ocrConfig = ocrSettings({ scope: 'unit_o', sources: [{ name: 'o', model: transport }] });
    return { client: new OcrClient({ settings: ocrConfig, ...governance(ocrConfig) }), transport };
  }

  it('refuses empty or non-byte images and bad OCR options before the call', async () => {
    const { client, transport } = ocrClient();
    await expect(client.recognizeText(new Uint8Array())).rejects.toThrow(/recognizeText\(image\) must not be empty/);
    await expect(client.parseLayout('page.png' as never)).rejects.toThrow(/parseLayout\(image\) must be a Uint8Array/);
    await expect(client.recognizeText(new Uint8Array([1]), { fields: { dpi: 300 } } as never)).rejects.toThrow(/recognizeText\(fields\)/);
    expect(transport.recognizeText).not.toHaveBeenCalled();
    expect(transport.parseLayout).not.toHaveBeenCalled();
  });

  it('passes OCR options through and reports health per source', async () => {
    const { client, transport } = ocrClient();
    await expect(client.recognizeText(new Uint8Array([1]), { fileName: 'p.png', fields: { lang: 'en' } })).resolves.toMatchObject({ text: 't', source: 'o', callStats: { attempts: 1, sourcesTried: ['o'] } });
    expect(vi.mocked(transport.recognizeText).mock.calls[0]![1]).toEqual({ fileName: 'p.png', fields: { lang: 'en' } });
    await expect(client.checkHealth()).resolves.toEqual({ o: true });
  });
});

describe('re-exports', () => {
  it('the error classes are those of @pgw/core', async () => {
    const client = await import('../src/index.js');
    for (const name of ['PolyGatewayError', 'AllSourcesExhausted', 'CallDeadlineExceeded', 'GovernanceBackendError', 'SourceNotConfiguredError'] as const) {
      expect(client[name]).toBe(core[name]);
    }
  });
});
