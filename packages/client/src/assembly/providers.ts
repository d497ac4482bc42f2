/**
 * The provider factories a settings-built client uses: `openaiCompatible` for chat and embedding
 * sources, `monkeyOcr` (an optional package, loaded on demand) for OCR sources. Every model of one
 * client shares one HTTP agent — the injected `dispatcher`, or one the client creates on first use
 * and closes after its models.
 */
import type { ChatModel, EmbeddingModel, GatewaySettings, OcrModel } from '@pgw/core';
import { createAgent } from '@pgw/http';
import { openaiCompatible, type OpenAICompatibleOptions } from '@pgw/transport-openai';
import type { EndpointSource } from './models.js';
import { loadOptional } from './optional-package.js';
import type { OwnedResources } from './owned-resources.js';

export type Dispatcher = NonNullable<OpenAICompatibleOptions['dispatcher']>;

/** What a settings-built client passes to every factory. */
export interface ProviderSeams {
  /** The HTTP dispatcher of every model the client builds (a ProxyAgent, a MockAgent, an interceptor chain…). Never closed by the client. */
  dispatcher?: Dispatcher;
  warn?: (message: string) => void;
  now?: () => number;
}

export function openaiCompatibleFor(seams: ProviderSeams, owned: OwnedResources): (source: EndpointSource) => ChatModel & EmbeddingModel {
  const dispatcher = sharedDispatcher(seams, owned);
  return (source: EndpointSource) =>
    openaiCompatible({
      ...endpointOf(source),
      stream: source.stream,
      profile: source.provider,
      extraBody: source.extraBody,
      ...(source.strictSchema !== undefined && { strictSchema: source.strictSchema }),
      ...(source.effortMap !== undefined && { effortMap: source.effortMap }),
      dispatcher: dispatcher(),
      ...seamsOf(seams),
    });
}

/** Typed by core's port only: the optional package's own types must not leak into this package's declarations. */
export async function monkeyOcrFor(
  settings: GatewaySettings,
  seams: ProviderSeams,
  owned: OwnedResources,
): Promise<(source: EndpointSource) => OcrModel> {
  const needed = settings.sources.some((source) => source.instance === undefined);
  const pkg = needed ? await loadOptional('@pgw/transport-monkeyocr', 'OcrClient', () => import('@pgw/transport-monkeyocr')) : undefined;
  const dispatcher = sharedDispatcher(seams, owned);
  return (source: EndpointSource) => pkg!.monkeyOcr({ ...endpointOf(source), dispatcher: dispatcher(), ...seamsOf(seams) });
}

function endpointOf(source: EndpointSource) {
  const { baseUrl, model, apiKeyHeader, headers, query, maxResponseBytes } = source;
  return { baseUrl, model, apiKeyHeader, headers, query, maxResponseBytes, ...(source.apiKey !== undefined && { apiKey: source.apiKey }) };
}

function seamsOf(seams: ProviderSeams) {
  return { ...(seams.warn && { warn: seams.warn }), ...(seams.now && { now: seams.now }) };
}

/** The injected dispatcher, or one agent created on first use and registered before the models that use it (so it closes after them). */
function sharedDispatcher(seams: ProviderSeams, owned: OwnedResources): () => Dispatcher {
  let agent: Dispatcher | undefined = seams.dispatcher;
  return () => {
    if (agent === undefined) {
      const created = createAgent();
      owned.add(() => created.close());
      agent = created;
    }
    return agent;
  };
}
