/** Scripted fakes for unit tests of the governed call path: clock, sleep, limiter, breaker, transports, recorder. */
import {
  abortError,
  governorOf,
  MODEL_SPECIFICATION_VERSION,
  type ChatDelta,
  type LimitAdmission,
  type AttemptContext,
  type BreakerSnapshot,
  type ChatModel,
  type ChatModelCapabilities,
  type ChatResult,
  type EmbeddingModel,
  type EmbedResult,
  type Breaker,
  type BreakerVerdict,
  type BreakerRefusal,
  type BreakerTicket,
  type BreakerTransition,
  type Governor,
  type GovernorRefusal,
  type Lease,
  type LimitGate,
  type Limiter,
  type OcrModel,
  type Permit,
  type Sleep,
  type Source,
  type SourceStats,
  type TelemetryRecorder,
  type TelemetryRow,
  type Usage,
} from '@pgw/core';
import { deferred, idleBreakerSnapshot } from '@pgw/testkit';

export class ManualClock {
  constructor(public t = 1_000_000) {}
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

/** Records every requested duration; resolves at once (advancing the clock) unless `hang`, then waits for abort. */
export class RecordingSleep {
  readonly calls: number[] = [];
  hang = false;
  /** Runs at each sleep (e.g. another call making progress meanwhile). */
  onSleep: ((ms: number) => void) | undefined;
  private entered = deferred();
  constructor(private readonly clock?: ManualClock) {}
  /** Resolves when the next sleep starts. */
  nextCall(): Promise<void> {
    return this.entered.promise;
  }
  readonly sleep: Sleep = (ms, signal) => {
    this.calls.push(ms);
    this.onSleep?.(ms);
    const entered = this.entered;
    this.entered = deferred();
    entered.resolve();
    if (signal?.aborted) return Promise.reject(abortError(signal));
    if (this.hang) {
      return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(abortError(signal)), { once: true }));
    }
    this.clock?.advance(ms);
    return Promise.resolve();
  };
  get total(): number {
    return this.calls.reduce((a, b) => a + b, 0);
  }
}

/** A source whose model is a placeholder until a harness binds its script (`withModel`). */
export function source(name: string, overrides: Partial<Source<ScriptedModel>> = {}): Source<ScriptedModel> {
  return {
    name,
    model: new ScriptedModel(new Script([]), `model-${name}`),
    rpm: 0,
    tpm: 0,
    maxConcurrency: 0,
    estTokens: 100,
    timeoutMs: 120_000,
    weight: 1,
    ...overrides,
  };
}

/** The sources, each with a model that runs `script` (keeping its model id and capabilities). */
export function withModel(sources: readonly Source<ScriptedModel>[], script: Script<unknown>): Source<ScriptedModel>[] {
  return sources.map((s) => ({ ...s, model: new ScriptedModel(script, s.model.modelId, s.model.capabilities) }));
}

// ── Limiter ──────────────────────────────────────────────────────────────────────────────────

export interface PermitLog {
  source: string;
  est: number;
  settled: number[];
  releases: number;
}

/**
 * Exact accounting without windows: `tpmUsed` = reservations + settle deltas (first settle counts),
 * `inflight` = unreleased permits. `deny` scripts refusals per source.
 */
export class AccountingLimiter implements Limiter {
  readonly permits: PermitLog[] = [];
  readonly deny = new Map<string, { gate: LimitGate; retryAfterMs: number }>();
  readonly tpm = new Map<string, number>();
  readonly inflight = new Map<string, number>();
  enterCalls = 0;
  failWith: Error | undefined;

  async tryEnter(sourceName: string, estTokens: number): Promise<LimitAdmission> {
    this.enterCalls += 1;
    if (this.failWith) throw this.failWith;
    const denial = this.deny.get(sourceName);
    if (denial) return { ok: false, ...denial };
    const log: PermitLog = { source: sourceName, est: estTokens, settled: [], releases: 0 };
    this.permits.push(log);
    this.bump(this.tpm, sourceName, estTokens);
    this.bump(this.inflight, sourceName, 1);
    const permit: Permit = {
      source: sourceName,
      estTokens,
      settle: async (actual) => {
        log.settled.push(actual);
        if (log.settled.length === 1) this.bump(this.tpm, sourceName, actual - estTokens);
      },
      release: async () => {
        log.releases += 1;
        if (log.releases === 1) this.bump(this.inflight, sourceName, -1);
      },
    };
    return { ok: true, permit };
  }

  async sourceStats(sourceName: string): Promise<SourceStats> {
    return { inflight: this.inflight.get(sourceName) ?? 0, rpmUsed: 0, tpmUsed: this.tpm.get(sourceName) ?? 0 };
  }

  lastPermit(): PermitLog {
    const last = this.permits.at(-1);
    if (!last) throw new Error('no permit issued');
    return last;
  }

  private bump(map: Map<string, number>, key: string, delta: number): void {
    map.set(key, (map.get(key) ?? 0) + delta);
  }
}

// ── Breaker ─────────────────────────────────────────────────────────────────────────────────────

export class ScriptedBreaker implements Breaker {
  readonly records: Array<{ source: string; outcome: BreakerVerdict; epoch: number; probe: boolean }> = [];
  readonly probeReleases: string[] = [];
  readonly acquires: string[] = [];
  /** Sources refused, with their retry hint. */
  readonly open = new Map<string, number>();
  /** Sources whose next ticket is the half-open probe. */
  readonly probing = new Set<string>();
  /** When set, `record` hangs (never settles) after resolving `recordEntered`. */
  hangRecord = false;
  recordEntered = deferred();
  failWith: Error | undefined;
  epoch = 7;

  async tryAcquire(sourceName: string): Promise<BreakerTicket | BreakerRefusal> {
    this.acquires.push(sourceName);
    if (this.failWith) throw this.failWith;
    const retryAfterMs = this.open.get(sourceName);
    if (retryAfterMs !== undefined) return { ok: false, source: sourceName, state: 'open', retryAfterMs };
    const probe = this.probing.has(sourceName);
    return { ok: true, source: sourceName, epoch: this.epoch, probe, ...(probe ? { probeToken: `probe-${sourceName}` } : {}) };
  }

  record(ticket: BreakerTicket, outcome: BreakerVerdict): Promise<BreakerTransition | undefined> {
    this.records.push({ source: ticket.source, outcome, epoch: ticket.epoch, probe: ticket.probe });
    if (this.hangRecord) {
      this.recordEntered.resolve();
      return new Promise(() => undefined);
    }
    return Promise.resolve(undefined);
  }

  async releaseProbe(ticket: BreakerTicket): Promise<void> {
    if (ticket.probe) this.probeReleases.push(ticket.source);
  }

  async snapshot(sourceName: string): Promise<BreakerSnapshot> {
    return { ...idleBreakerSnapshot(sourceName, this.epoch), state: this.open.has(sourceName) ? 'open' : 'closed' };
  }

  outcomes(): string[] {
    return this.records.map((r) => `${r.source}:${r.outcome}`);
  }
}

// ── Transports ───────────────────────────────────────────────────────────────────────────────

/** A scripted step: a value, an error to throw, HANG (wait for abort), or a function of the attempt. */
export const HANG = Symbol('hang');
export type Step<Res> = Res | Error | typeof HANG | ((ctx: AttemptContext & { onDelta?: (delta: ChatDelta) => void }) => Promise<Res> | Res);

export interface TransportCall {
  source: string;
  callId: string;
  request: unknown;
}

/** Steps run in order across calls; `entered` resolves each time an attempt reaches the transport. */
export class Script<Res> {
  readonly calls: TransportCall[] = [];
  private entered = deferred();
  constructor(private readonly steps: Array<Step<Res>>, private readonly fallback?: Step<Res>) {}

  /** Resolves when the next attempt has entered the transport. */
  nextEntry(): Promise<void> {
    return this.entered.promise;
  }

  async run(request: unknown, ctx: AttemptContext): Promise<Res> {
    this.calls.push({ source: ctx.sourceName, callId: ctx.callId, request });
    const step = this.steps.length > 0 ? this.steps.shift()! : this.fallback;
    const entered = this.entered;
    this.entered = deferred();
    entered.resolve();
    if (step === undefined) throw new Error('script exhausted');
    if (step === HANG) {
      return new Promise<Res>((_, reject) => {
        if (ctx.signal.aborted) reject(abortError(ctx.signal));
        ctx.signal.addEventListener('abort', () => reject(abortError(ctx.signal)), { once: true });
      });
    }
    if (step instanceof Error) throw step;
    if (typeof step === 'function') return (step as (c: AttemptContext) => Promise<Res> | Res)(ctx);
    return step;
  }

  sources(): string[] {
    return this.calls.map((c) => c.source);
  }
}

export function usage(promptTokens: number, completionTokens: number, usageSource: Usage['usageSource'] = 'measured'): Usage {
  return { promptTokens, completionTokens, usageSource };
}

export function chatResult(content = 'ok', overrides: Partial<ChatResult> = {}): ChatResult {
  return { content, model: 'model-x', usage: usage(10, 5), thinkingObservation: 'unknown', ...overrides };
}

export function embedResult(count: number, dim = 3, overrides: Partial<EmbedResult> = {}): EmbedResult {
  return {
    vectors: Array.from({ length: count }, (_, i) => Array.from({ length: dim }, (__, j) => i + j + 1)),
    model: 'embed-x',
    usage: usage(4 * count, 0),
    ...overrides,
  };
}

/**
 * A model of every kind whose operations run one script: chat (`generate` and `stream` alike: a
 * step forwards deltas through `ctx.onDelta` itself), embeddings and OCR (the script sees the options).
 */
export class ScriptedModel implements ChatModel, EmbeddingModel, OcrModel {
  readonly specificationVersion = MODEL_SPECIFICATION_VERSION;
  readonly provider = 'scripted';
  readonly managedKeys: readonly string[] = [];

  constructor(
    readonly script: Script<unknown>,
    readonly modelId = 'model-x',
    readonly capabilities: ChatModelCapabilities = { jsonSchema: true, streaming: true },
  ) {}

  generate(request: unknown, ctx: AttemptContext): Promise<ChatResult> {
    return this.script.run(request, ctx) as Promise<ChatResult>;
  }

  stream(request: unknown, ctx: AttemptContext): Promise<ChatResult> {
    return this.script.run(request, ctx) as Promise<ChatResult>;
  }

  embed(request: unknown, ctx: AttemptContext): Promise<EmbedResult> {
    return this.script.run(request, ctx) as Promise<EmbedResult>;
  }

  recognizeText(_image: Uint8Array, options: unknown, ctx: AttemptContext): Promise<{ text: string }> {
    return this.script.run(options, ctx) as Promise<{ text: string }>;
  }

  parseLayout(_image: Uint8Array, options: unknown, ctx: AttemptContext): Promise<{ markdown: string; elements: [] }> {
    return this.script.run(options, ctx) as Promise<{ markdown: string; elements: [] }>;
  }

  async checkHealth(): Promise<boolean> {
    return true;
  }
}

// ── Telemetry ────────────────────────────────────────────────────────────────────────────────

export class ArrayRecorder implements TelemetryRecorder {
  readonly rows: TelemetryRow[] = [];
  record(row: TelemetryRow): void {
    this.rows.push(row);
  }
  async flush(): Promise<void> {}
  stats() {
    return { written: this.rows.length, dropped: 0, queued: 0 };
  }
  async close(): Promise<void> {}
  kind(kind: TelemetryRow['eventKind']): TelemetryRow[] {
    return this.rows.filter((row) => row.eventKind === kind);
  }
}

/** Lets every pending promise chain (late grants, write-backs) run to completion. */
export async function drain(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

// ── Governor ─────────────────────────────────────────────────────────────────────────────────

/** A governor over a fake breaker and limiter (joined by `governorOf`) that logs each admission and each finish it was given. */
export class LoggingGovernor implements Governor {
  readonly admits: string[] = [];
  readonly finishes: Array<[verdict: BreakerVerdict | undefined, actualTokens: number]> = [];
  private readonly joined: Governor;

  constructor(breaker: Breaker, limiter: Limiter) {
    this.joined = governorOf(limiter, breaker);
  }

  async admit(sourceName: string, estTokens: number): Promise<Lease | GovernorRefusal> {
    this.admits.push(sourceName);
    const answer = await this.joined.admit(sourceName, estTokens);
    if (!answer.ok) return answer;
    const { source, transition } = answer;
    return {
      ok: true,
      source,
      estTokens: answer.estTokens,
      transition,
      finish: (verdict, actualTokens) => {
        this.finishes.push([verdict, actualTokens]);
        return answer.finish(verdict, actualTokens);
      },
    };
  }

  sourceStats(sourceName: string) {
    return this.joined.sourceStats(sourceName);
  }
}
