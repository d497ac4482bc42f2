import type {
  AttemptEndEvent,
  Cache,
  ChatMessage,
  GatewaySubscriber,
  ChatResult,
  EmbedResult,
  Breaker,
  Governor,
  Limiter,
  ModelIdentity,
  Operation,
  PricingTable,
  Source,
  TelemetryRecorder,
} from '@pgw/core';
import { governorOf } from '@pgw/core';
import {
  createCallContext,
  createSelector,
  DEFAULT_QUOTA_NAP,
  HealthBook,
  Pacer,
  retryLoop,
  ScopeProgress,
  WaitLine,
  WarnOnce,
  WriteBacks,
  type AttemptOperation,
  EventHub,
  type RetryLoopDeps,
  assembleChatPipeline,
  assembleEmbedPipeline,
  assembleOcrPipeline,
  type CallOptions,
  type ChatPipelineParts,
  type ChatMiddleware,
  type GatewayChatRequest,
  type StreamCallOptions,
} from './internals.js';
import {
  AccountingLimiter,
  ArrayRecorder,
  ManualClock,
  RecordingSleep,
  Script,
  ScriptedBreaker,
  ScriptedModel,
  source,
  withModel,
  type Step,
} from './fakes.js';

export type TestSettings = ChatPipelineParts['settings'];

export function testSettings(overrides: Partial<TestSettings> = {}): TestSettings {
  return {
    scope: 'LLM',
    sources: [source('a'), source('b')],
    selector: 'ordered',
    quotaFull: 'wait',
    circuitOpen: 'fail_fast',
    retry: { maxAttempts: 3, backoffBaseMs: 100, backoffMaxMs: 30_000 },
    stallWindowMs: 300_000,
    telemetryTextCap: 2000,
    cache: { namespace: 'ns', isolation: 'tenant', ttlMs: 60_000, salt: '' },
    structured: { maxRetries: 2, strategy: 'json_repair', escalation: 'json_schema' },
    ...overrides,
  };
}

export interface HarnessOptions {
  settings?: Partial<TestSettings>;
  sources?: Source<ScriptedModel>[];
  limiter?: Limiter;
  breaker?: Breaker;
  governor?: Governor;
  cache?: Cache;
  rng?: () => number;
  pricing?: PricingTable;
  recorder?: TelemetryRecorder;
  /** Share one clock with real backends built by the test. */
  clock?: ManualClock;
  subscribers?: GatewaySubscriber[];
}

function common(options: HarnessOptions, script: Script<unknown>) {
  const clock = options.clock ?? new ManualClock();
  const sleep = new RecordingSleep(clock);
  const limiter = options.limiter ?? new AccountingLimiter();
  const breaker = options.breaker ?? new ScriptedBreaker();
  const recorder = new ArrayRecorder();
  const usedRecorder = options.recorder ?? recorder;
  const warnings: string[] = [];
  const configured = testSettings({ ...options.settings, ...(options.sources ? { sources: options.sources } : {}) });
  const settings = { ...configured, sources: withModel(configured.sources as Source<ScriptedModel>[], script) };
  const governor = options.governor ?? governorOf(limiter, breaker);
  const parts = {
    settings,
    governor,
    recorder: usedRecorder,
    pricing: options.pricing,
    now: clock.now,
    sleep: sleep.sleep,
    rng: options.rng ?? (() => 0.5),
    warn: (message: string) => warnings.push(message),
    subscribers: options.subscribers,
  };
  return { clock, sleep, limiter, breaker, governor, recorder, warnings, settings, parts };
}

export const HI: ChatMessage[] = [{ role: 'user', content: 'hi' }];

export function chatHarness(
  steps: Array<Step<ChatResult>>,
  options: HarnessOptions & { middleware?: ChatMiddleware[] } = {},
  fallback?: Step<ChatResult>,
) {
  const script = new Script<ChatResult>(steps, fallback);
  const base = common(options, script);
  const pipeline = assembleChatPipeline({ ...base.parts, cache: options.cache, middleware: options.middleware });
  const run = (request: Partial<GatewayChatRequest> = {}, callOptions: CallOptions = {}) =>
    pipeline.run({ messages: HI, sampling: {}, ...request }, callOptions);
  const stream = (request: Partial<GatewayChatRequest> = {}, callOptions: StreamCallOptions = {}) =>
    pipeline.stream({ messages: HI, sampling: {}, ...request }, callOptions);
  return { ...base, script, pipeline, run, stream };
}

export function embedHarness(
  steps: Array<Step<EmbedResult>>,
  options: HarnessOptions & { batchSize?: number; normalize?: boolean; expectedDim?: number } = {},
) {
  const script = new Script<EmbedResult>(steps);
  const base = common(options, script);
  const pipeline = assembleEmbedPipeline({
    ...base.parts,
    settings: { ...base.settings, batchSize: options.batchSize ?? 16, normalize: options.normalize ?? false, expectedDim: options.expectedDim },
  });
  return { ...base, script, pipeline };
}

export function ocrHarness(steps: Array<Step<unknown>>, options: HarnessOptions = {}) {
  const script = new Script<unknown>(steps);
  const base = common(options, script);
  const pipeline = assembleOcrPipeline(base.parts);
  return { ...base, script, pipeline };
}

/** The retry loop alone, with every part reachable (pacer, rows) for accounting assertions. */
export function loopHarness<Req, Res, M extends ModelIdentity = ModelIdentity>(
  makeOperation: (script: Script<Res>) => AttemptOperation<Req, Res, M>,
  steps: Array<Step<Res>>,
  options: HarnessOptions & { operation?: Operation } = {},
) {
  const script = new Script<Res>(steps);
  const base = common(options, script);
  const warnOnce = new WarnOnce((message) => base.warnings.push(message));
  const pacer = new Pacer(base.settings.sources);
  const health = new HealthBook();
  const progress = new ScopeProgress(base.clock.now);
  const reports: AttemptEndEvent[] = [];
  const deps: RetryLoopDeps = {
    scope: base.settings.scope,
    governor: base.governor,
    pacer,
    health,
    progress,
    writeBacks: new WriteBacks(warnOnce),
    selector: createSelector(base.settings.selector, {
      sources: base.settings.sources,
      governor: base.governor,
      health,
      rng: () => 0.5,
      now: base.clock.now,
    }),
    retry: base.settings.retry,
    quotaFull: base.settings.quotaFull,
    circuitOpen: base.settings.circuitOpen,
    stallWindowMs: base.settings.stallWindowMs,
    quotaNap: DEFAULT_QUOTA_NAP,
    line: new WaitLine(),
    sleep: base.sleep.sleep,
    rng: options.rng ?? (() => 0.5),
    now: base.clock.now,
    events: new EventHub([{ onAttemptEnd: (event) => reports.push(event) }], warnOnce),
  };
  const loop = retryLoop(deps, makeOperation(script));
  const start = (request: Req, signal?: AbortSignal) => {
    const ctx = createCallContext({ scope: deps.scope, operation: options.operation ?? 'chat', now: base.clock.now, signal });
    return { ctx, done: loop({ request, ctx }) };
  };
  return { ...base, script, pacer, health, progress, reports, deps, start };
}
