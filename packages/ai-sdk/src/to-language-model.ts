/**
 * `toLanguageModel`: a `GatewayClient` as an AI SDK `LanguageModelV3`. Every `doGenerate` /
 * `doStream` (one call of `generateText`, `streamText`, `generateObject`, or one tool step) is one
 * governed call: sources, gates, breaker, retries, cache, deadline, telemetry rows and cost.
 * Library errors reach AI SDK code as themselves; none is an `APICallError`, so the SDK's own
 * retry never repeats what the governed call already retried.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { GatewayClient } from '@pgw/client';
import { governedCall } from './call-settings.js';
import { finishReason, pgwMetadata, resultContent, resultUsage } from './governed-result.js';
import { promptToMessages } from './prompt-to-messages.js';
import { StreamParts } from './stream-parts.js';

export interface ToLanguageModelOptions {
  /** The `modelId` AI SDK code and its telemetry see. Default: the model of the client's first source. */
  modelId?: string;
  /** The `provider` AI SDK code sees. Default `pgw`. */
  providerId?: string;
}

/** Image URLs go to the sources as they are; any other file the AI SDK downloads and hands over as bytes. */
const SUPPORTED_URLS = { 'image/*': [/^https?:\/\/.*$/] };

export function toLanguageModel(client: GatewayClient, options: ToLanguageModelOptions = {}): LanguageModelV3 {
  const first = client.settings.sources[0];
  return {
    specificationVersion: 'v3',
    provider: options.providerId ?? 'pgw',
    modelId: options.modelId ?? first?.model ?? client.settings.scope,
    supportedUrls: SUPPORTED_URLS,

    async doGenerate(settings) {
      const { messages, options: call, warnings } = prepared(settings);
      const response = await client.chat(messages, call);
      return {
        content: resultContent(response),
        finishReason: finishReason(response),
        usage: resultUsage(response.usage),
        providerMetadata: pgwMetadata(response),
        response: { modelId: response.model },
        warnings,
      };
    },

    async doStream(settings) {
      const { messages, options: call, warnings } = prepared(settings);
      if (settings.includeRawChunks) warnings.push({ type: 'unsupported', feature: 'includeRawChunks', details: 'a governed stream yields deltas, not raw chunks' });
      if (call.structured !== undefined) return { stream: wholeStructuredAnswer(client, messages, call, warnings) };
      const governed = client.chatStream(messages, call);
      const deltas = governed[Symbol.asyncIterator]();
      let parts!: StreamParts;
      let done = false;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          parts = new StreamParts((part) => controller.enqueue(part));
          controller.enqueue({ type: 'stream-start', warnings });
        },
        async pull(controller) {
          try {
            const next = await deltas.next();
            if (!next.done) return parts.delta(next.value);
            parts.finish(await governed.response);
          } catch (error) {
            controller.enqueue({ type: 'error', error });
          }
          done = true;
          controller.close();
        },
        async cancel() {
          // The consumer stopped reading: the governed call is cancelled and settles its permit.
          if (!done) await deltas.return?.();
        },
      });
      return { stream };
    },
  };
}

function prepared(settings: LanguageModelV3CallOptions) {
  return { messages: promptToMessages(settings.prompt), ...governedCall(settings) };
}

/**
 * Structured output is not streamed: a re-asked answer cannot take back streamed tokens, so the
 * governed `chat` runs its ladder and the validated value arrives as one text delta.
 */
function wholeStructuredAnswer(
  client: GatewayClient,
  messages: ReturnType<typeof promptToMessages>,
  call: ReturnType<typeof governedCall>['options'],
  warnings: ReturnType<typeof governedCall>['warnings'],
): ReadableStream<LanguageModelV3StreamPart> {
  warnings.push({ type: 'compatibility', feature: 'responseFormat', details: 'a structured answer is validated whole, then sent as one text delta' });
  return new ReadableStream<LanguageModelV3StreamPart>({
    async start(controller) {
      controller.enqueue({ type: 'stream-start', warnings });
      const parts = new StreamParts((part) => controller.enqueue(part));
      try {
        const response = await client.chat(messages, call);
        parts.delta({ content: JSON.stringify(response.parsed) });
        parts.finish(response);
      } catch (error) {
        controller.enqueue({ type: 'error', error });
      }
      controller.close();
    },
  });
}
