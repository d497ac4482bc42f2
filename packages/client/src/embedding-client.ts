/** The embedding client (docs/architecture.md#public-api): batches of BATCH_SIZE, served serially under one call deadline. */
import type { BudgetStatus, EmbeddingModel, EmbeddingSettings, Governor, KeyBounds, KeyStatus } from '@pgw/core';
import { wellFormed } from '@pgw/core/internal';
import { assembleEmbedPipeline } from '@pgw/middleware';
import type { EmbeddingMiddleware, EmbeddingResponse, EmbedPipeline } from '@pgw/middleware';
import { assembleComponents } from './assembly/components.js';
import type { AssemblyOverrides } from './assembly/components.js';
import { governedSources, withModels } from './assembly/models.js';
import { openaiCompatibleFor } from './assembly/providers.js';
import { assertRequestSize, assertTexts, commonCallOptions, resolveCallDeadline } from './call-input.js';
import type { CommonCallOptions } from './call-input.js';
import { readTenantStatus, type TenantStatus } from './tenant-status.js';
import { readKeyStatus } from './key-status.js';
import { readBudgetStatus, type BudgetStatusOptions } from './budget-status.js';
import { readSourceStatus, type SourceStatus } from './source-status.js';
import { OwningClient, assembling } from './client-lifecycle.js';
import { requireParts, seams, type ClientParts } from './client-parts.js';
import { embeddingSettings } from './settings/construct.js';
import { loadEmbeddingSettings } from './settings/load-env.js';
import type { LoadSettingsOptions } from './settings/load-env.js';

export type EmbedOptions = CommonCallOptions;

/** Full injection: settings whose sources carry an embedding model, the governance components and seams. */
export interface EmbeddingParts extends ClientParts<EmbeddingSettings> {
  /** Layers of your own, inside the call deadline and outside the batches; `[0]` outermost. */
  middleware?: readonly EmbeddingMiddleware[];
}

export interface EmbeddingClientOverrides extends AssemblyOverrides {
  middleware?: readonly EmbeddingMiddleware[];
}

export class EmbeddingClient extends OwningClient {
  readonly settings: EmbeddingSettings;
  readonly #pipeline: EmbedPipeline;
  readonly #callDeadlineMs: number | undefined;
  readonly #governor: Governor;

  static async fromEnv(scope = 'EMBED', options: LoadSettingsOptions & EmbeddingClientOverrides = {}): Promise<EmbeddingClient> {
    const { env, envFile, ...overrides } = options;
    const settings = loadEmbeddingSettings(scope, { env, envFile, ...(overrides.warn && { warn: overrides.warn }) });
    return EmbeddingClient.fromSettings(settings, overrides);
  }

  static async fromSettings(settings: EmbeddingSettings, overrides: EmbeddingClientOverrides = {}): Promise<EmbeddingClient> {
    const valid = embeddingSettings(settings);
    const { value: client, owned } = await assembling(async (owned) => {
      const components = await assembleComponents(valid, { ...overrides, cache: false }, owned);
      const withModel = withModels(valid, openaiCompatibleFor(overrides, owned), owned);
      const { now, sleep, rng, warn, callDeadlineMs, middleware } = overrides;
      return new EmbeddingClient({ ...components, settings: withModel, now, sleep, rng, warn, callDeadlineMs, middleware });
    });
    client.adopt(owned);
    return client;
  }

  constructor(parts: EmbeddingParts) {
    super();
    requireParts(parts, 'EmbeddingClient', ['governor']);
    this.#governor = parts.governor;
    this.settings = embeddingSettings(parts.settings);
    this.#callDeadlineMs = resolveCallDeadline(parts.callDeadlineMs, this.settings.callDeadlineMs, 'EmbeddingClient(callDeadlineMs)');
    this.#pipeline = assembleEmbedPipeline({
      settings: { ...this.settings, sources: governedSources<EmbeddingModel>(this.settings, ['embed'], 'EmbeddingClient') },
      governor: parts.governor,
      ...(parts.recorder && { recorder: parts.recorder }),
      ...(parts.pricing && { pricing: parts.pricing }),
      subscribers: parts.subscribers,
      middleware: parts.middleware,
      ...seams(parts),
    });
  }

  /** A tenant's use of the scope now: each gate's use and bound, its budget, its calls waiting here (`""` = calls without a tenant). */
  tenantStatus(tenantId: string): Promise<TenantStatus> {
    this.assertOpen('tenantStatus');
    return readTenantStatus(this.#governor, tenantId, (id) => this.#pipeline.waiting(id), 'EmbeddingClient');
  }

  /** A stored key's use of the scope now (RPM, TPM, in flight) and its budget's settled spend in the current window. */
  keyStatus(bounds: KeyBounds): Promise<KeyStatus> {
    this.assertOpen('keyStatus');
    return readKeyStatus(this.#governor, bounds, 'EmbeddingClient');
  }

  /** Each source's breaker (state, open until) and its RPM, TPM and concurrency use against its bounds, now. */
  sourceStatus(): Promise<SourceStatus[]> {
    this.assertOpen('sourceStatus');
    return readSourceStatus(this.#governor, this.settings.sources);
  }

  /** The spend budget a call of `options.tenantId` spends, now: spent, reserved, budget, resetAt. Undefined without a budget. */
  budgetStatus(options: BudgetStatusOptions = {}): Promise<BudgetStatus | undefined> {
    this.assertOpen('budgetStatus');
    return readBudgetStatus(this.#governor, options, 'EmbeddingClient');
  }

  /**
   * Embeds `texts` in batches of `settings.batchSize`, one after another, inside ONE logical call
   * (one deadline, one attempt ledger). No texts: returns at once with zero attempts.
   */
  async embed(texts: string[], options: EmbedOptions = {}): Promise<EmbeddingResponse> {
    this.assertOpen('embed');
    assertTexts(texts, 'embed(texts)');
    const call = commonCallOptions(options, 'embed', [], this.#callDeadlineMs);
    const sent = texts.map(wellFormed);
    assertRequestSize(sent, 'embed(texts)', this.settings);
    return this.#pipeline.run(sent, call);
  }
}
