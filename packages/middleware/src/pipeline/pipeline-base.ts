import { assertModel } from '@pgw/core/internal';
import type {
  Clock,
  GatewaySettings,
  GatewaySubscriber,
  Governor,
  ModelIdentity,
  PricingTable,
  Sleep,
  Source,
  TelemetryRecorder,
} from '@pgw/core';
import { BudgetPricing } from './budget-pricing.js';
import { assertSubscribers, EventHub } from '../telemetry/event-hub.js';
import { HealthBook } from '../admission/health.js';
import { Pacer } from '../admission/pacer.js';
import { DEFAULT_QUOTA_NAP, type QuotaNap, type RetryLoopDeps } from './retry-loop.js';
import { createSelector } from '../admission/selector.js';
import { ScopeProgress } from './stall-clock.js';
import { WaitLine } from '../admission/wait-line.js';
import { TelemetryEmitter } from '../telemetry/telemetry-emitter.js';
import { describeError, WarnOnce } from '../warn-once.js';
import { WriteBacks } from '../admission/write-backs.js';

/**
 * The settings every pipeline reads: a scope's policies and its sources, each with the model that
 * reaches it (the client builds them from `GatewaySettings`).
 */
export type PipelineSettings<M extends ModelIdentity = ModelIdentity> = Pick<
  GatewaySettings,
  'scope' | 'selector' | 'quotaFull' | 'circuitOpen' | 'retry' | 'stallWindowMs' | 'telemetryTextCap' | 'budget'
> &
  Partial<Pick<GatewaySettings, 'tenants'>> & { sources: readonly Source<M>[] };

/** What every pipeline is assembled from. All time and randomness are injected. */
export interface PipelineParts<M extends ModelIdentity = ModelIdentity> {
  settings: PipelineSettings<M>;
  /** The scope's breakers and six gates (see core `Governor`; `governorOf` joins a separate limiter and breaker). */
  governor: Governor;
  recorder?: TelemetryRecorder;
  pricing?: PricingTable;
  now: Clock;
  sleep: Sleep;
  rng: () => number;
  warn: (message: string) => void;
  /** Poll bounds while every source's quota is full (default 25–1000 ms). */
  quotaNap?: QuotaNap;
  /** Share one scope's progress between pipelines of the same scope (default: one per pipeline). */
  progress?: ScopeProgress;
  /** Listeners of the pipeline's events, besides the telemetry-row emitter (see README "Events"). */
  subscribers?: readonly GatewaySubscriber[];
}

export interface PipelineBase {
  retryDeps: RetryLoopDeps;
  emitter: TelemetryEmitter;
  events: EventHub;
  warnings: WarnOnce;
  /** The scope's distinct model ids, sorted. */
  models: readonly string[];
}

/**
 * Checks and assembles what every pipeline shares. `operations` are the model operations the
 * pipeline calls: a source whose model lacks one is refused here, not at its first call.
 */
export function buildPipelineBase(parts: PipelineParts, operations: readonly string[]): PipelineBase {
  validateSettings(parts.settings);
  parts.settings.sources.forEach((source, index) =>
    assertModel(source.model, operations, `settings.sources[${index}].model (source '${source.name}')`),
  );
  const { settings, governor, now } = parts;
  const budget = budgetPricing(parts);
  const warnings = new WarnOnce(parts.warn);
  const health = new HealthBook();
  const pacer = new Pacer(settings.sources);
  const tenants = settings.tenants ?? {};
  const line = new WaitLine((tenantId) => (Object.hasOwn(tenants, tenantId) ? tenants[tenantId]!.weight : undefined) ?? 1);
  // Room freed in another process of the fleet wakes this process's first waiter too.
  governor.onRoomFreed?.(() => line.roomFreed());
  const emitter = new TelemetryEmitter({
    recorder: parts.recorder,
    textCap: settings.telemetryTextCap,
    pricing: parts.pricing,
    now,
    warnings,
  });
  const subscribers = assertSubscribers(parts.subscribers, 'subscribers');
  // The row emitter is one subscriber among the others, attached only when rows go somewhere.
  const events = new EventHub(emitter.recording ? [emitter, ...subscribers] : subscribers, warnings);
  const retryDeps: RetryLoopDeps = {
    scope: settings.scope,
    governor,
    pacer,
    health,
    progress: parts.progress ?? new ScopeProgress(now),
    writeBacks: new WriteBacks(warnings),
    selector: createSelector(settings.selector, {
      sources: settings.sources,
      governor,
      health,
      rng: parts.rng,
      now,
      onStatsError: (error) =>
        warnings.warnOnce('selector:stats', `health_aware: reading the sources' stats failed, ranking on the last figures: ${describeError(error)}`),
    }),
    retry: settings.retry,
    quotaFull: settings.quotaFull,
    circuitOpen: settings.circuitOpen,
    stallWindowMs: settings.stallWindowMs,
    quotaNap: parts.quotaNap ?? DEFAULT_QUOTA_NAP,
    line,
    sleep: parts.sleep,
    rng: parts.rng,
    now,
    events,
    ...(budget && { budget }),
    keyPrices: budget ?? new BudgetPricing(parts.pricing),
  };
  const models = [...new Set(settings.sources.map((source) => source.model.modelId))].sort();
  return { retryDeps, emitter, events, warnings, models };
}

/**
 * A budgeted scope's prices; a budget needs a governor that keeps budgets (reserved and settled in
 * its own store operations — not `governorOf(limiter, breaker)`) and a price for every source.
 */
function budgetPricing(parts: PipelineParts): BudgetPricing | undefined {
  const { settings } = parts;
  if (settings.budget === undefined) return undefined;
  if (parts.governor.budgetStatus === undefined) {
    throw new RangeError(
      `settings.budget: scope ${settings.scope} has a spend budget, which its governor does not keep (only a backend's own governor does: limiter and breaker on one backend)`,
    );
  }
  const pricing = new BudgetPricing(parts.pricing);
  pricing.assertPriced(settings.sources, settings.scope);
  return pricing;
}

/** Direct assembly skips the settings schema, so the values the loop relies on are checked here. */
function validateSettings(settings: PipelineSettings): void {
  if (settings.sources.length === 0) throw new RangeError(`settings.sources: scope ${settings.scope} has no sources`);
  const names = settings.sources.map((source) => source.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) throw new RangeError(`settings.sources: duplicate source name '${duplicate}'`);

  const { maxAttempts, backoffBaseMs, backoffMaxMs } = settings.retry;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`settings.retry.maxAttempts must be an integer ≥ 1, got ${maxAttempts}`);
  }
  for (const [key, value] of [
    ['retry.backoffBaseMs', backoffBaseMs],
    ['retry.backoffMaxMs', backoffMaxMs],
    ['stallWindowMs', settings.stallWindowMs],
    ['telemetryTextCap', settings.telemetryTextCap],
  ] as const) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`settings.${key} must be a finite number ≥ 0, got ${value}`);
  }
}
