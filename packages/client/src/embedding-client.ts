/** The embedding client (SPEC §3): batches of BATCH_SIZE, served serially under one call deadline. */
import type { EmbeddingSettings, EmbedTransport } from '@pgw/core';
import { assembleEmbedPipeline } from '@pgw/middleware';
import type { EmbeddingResponse, EmbedPipeline } from '@pgw/middleware';
import { OpenAICompatTransport } from '@pgw/transport-openai';
import { assembleComponents, closeWith } from './assembly/components.js';
import type { AssemblyOverrides } from './assembly/components.js';
import { assertTexts, commonCallOptions, resolveCallDeadline } from './call-input.js';
import type { CommonCallOptions } from './call-input.js';
import { OwningClient, assembling } from './client-lifecycle.js';
import { requireParts, seams, type ClientParts } from './client-parts.js';
import { embeddingSettings } from './settings/construct.js';
import { loadEmbeddingSettings } from './settings/load-env.js';
import type { LoadSettingsOptions } from './settings/load-env.js';

export type EmbedOptions = CommonCallOptions;

export type EmbeddingParts = ClientParts<EmbeddingSettings, EmbedTransport>;

export interface EmbeddingClientOverrides extends AssemblyOverrides {
  transport?: EmbedTransport;
}

export class EmbeddingClient extends OwningClient {
  readonly settings: EmbeddingSettings;
  readonly #pipeline: EmbedPipeline;
  readonly #callDeadlineMs: number | undefined;

  static async fromEnv(scope = 'EMBED', options: LoadSettingsOptions & EmbeddingClientOverrides = {}): Promise<EmbeddingClient> {
    const { env, envFile, ...overrides } = options;
    const settings = loadEmbeddingSettings(scope, { env, envFile, ...(overrides.warn && { warn: overrides.warn }) });
    return EmbeddingClient.fromSettings(settings, overrides);
  }

  static async fromSettings(settings: EmbeddingSettings, overrides: EmbeddingClientOverrides = {}): Promise<EmbeddingClient> {
    const valid = embeddingSettings(settings);
    const { value: client, owned } = await assembling(async (owned) => {
      const components = await assembleComponents(valid, { ...overrides, cache: false }, owned);
      const transport = overrides.transport ?? closeWith(owned, new OpenAICompatTransport(overrides.warn ? { warn: overrides.warn } : {}));
      const { now, sleep, rng, warn, callDeadlineMs } = overrides;
      return new EmbeddingClient({ ...components, settings: valid, transport, now, sleep, rng, warn, callDeadlineMs });
    });
    client.adopt(owned);
    return client;
  }

  constructor(parts: EmbeddingParts) {
    super();
    requireParts(parts, 'EmbeddingClient', ['limiter', 'gate', 'transport']);
    this.settings = embeddingSettings(parts.settings);
    this.#callDeadlineMs = resolveCallDeadline(parts.callDeadlineMs, this.settings.callDeadlineMs, 'EmbeddingClient(callDeadlineMs)');
    this.#pipeline = assembleEmbedPipeline({
      settings: this.settings,
      limiter: parts.limiter,
      gate: parts.gate,
      ...(parts.governor && { governor: parts.governor }),
      transport: parts.transport,
      ...(parts.recorder && { recorder: parts.recorder }),
      ...(parts.pricing && { pricing: parts.pricing }),
      ...seams(parts),
    });
  }

  /**
   * Embeds `texts` in batches of `settings.batchSize`, one after another, inside ONE logical call
   * (one deadline, one attempt ledger). No texts: returns at once with zero attempts.
   */
  async embed(texts: string[], options: EmbedOptions = {}): Promise<EmbeddingResponse> {
    this.assertOpen('embed');
    assertTexts(texts, 'embed(texts)');
    const call = commonCallOptions(options, 'embed', [], this.#callDeadlineMs);
    return this.#pipeline.run([...texts], call);
  }
}
