/**
 * Sources with their models. A client constructor takes sources that carry a model (built by a
 * provider factory or written by the user); `fromSettings` first builds a model for every source
 * described by its endpoint (BASE_URL…), with the provider factories, all sharing one HTTP agent
 * that the client owns and closes.
 */
import type { AnyModel, GatewaySettings, ModelIdentity, Source, SourceConfig } from '@pgw/core';
import { assertModel } from '@pgw/core/internal';
import { closeWith, type OwnedResources } from './owned-resources.js';

/** A source described by its endpoint, as the settings schema guarantees it (baseUrl present, defaults filled). */
export type EndpointSource = SourceConfig & Required<Pick<SourceConfig, 'baseUrl' | 'apiKeyHeader' | 'headers' | 'query' | 'stream' | 'maxResponseBytes' | 'provider' | 'extraBody'>>;

/**
 * The settings with a model in every source: endpoint sources get one from `build` (owned by the
 * client), the others keep theirs. Endpoint fields move into the model: the returned settings
 * carry no key or header value.
 */
export function withModels<S extends GatewaySettings>(settings: S, build: (source: EndpointSource) => AnyModel, owned: OwnedResources): S {
  if (settings.sources.every((source) => source.instance !== undefined)) return settings;
  const sources = settings.sources.map((source): SourceConfig => {
    if (source.instance !== undefined) return source;
    const model = closeWith(owned, build(source as EndpointSource));
    return { name: source.name, model: model.modelId, instance: model, ...limitsOf(source) };
  });
  return { ...settings, sources };
}

/** The governed view of every source, each model checked for the operations the client calls. */
export function governedSources<M extends ModelIdentity>(settings: GatewaySettings, operations: readonly string[], client: string): Source<M>[] {
  return settings.sources.map((source, index) => {
    if (source.instance === undefined) {
      throw new TypeError(
        `${client}(parts.settings.sources[${index}]) ('${source.name}') describes an endpoint: build the client with ` +
          `${client}.fromSettings or .fromEnv (they make its model), or give the source a model made by a provider factory`,
      );
    }
    const model = assertModel<M>(source.instance, operations, `${client}(parts.settings.sources[${index}].model)`);
    return { name: source.name, model, ...limitsOf(source) };
  });
}

function limitsOf(source: SourceConfig) {
  const { rpm, tpm, maxConcurrency, estTokens, timeoutMs, weight, contextWindow, price } = source;
  return {
    rpm,
    tpm,
    maxConcurrency,
    estTokens,
    timeoutMs,
    weight,
    ...(contextWindow !== undefined && { contextWindow }),
    ...(price !== undefined && { price }),
  };
}
