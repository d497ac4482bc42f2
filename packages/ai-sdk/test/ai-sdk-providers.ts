/** The real AI SDK providers as the tests make them: the contract suite's options in the provider's terms. */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { EmbeddingModelV3, LanguageModelV3 } from '@ai-sdk/provider';
import { ResultInvalidError } from '@pgw/core';
import type { ContractModelOptions } from '@pgw/testkit';

/**
 * A `fetch` whose answers stop at `maxBytes`: the body cap of the contract suite is the provider's
 * fetch's business (the AI SDK reads the body), and the library error it throws is the verdict.
 */
export function cappedFetch(maxBytes: number | undefined): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (maxBytes === undefined || response.body === null) return response;
    let bytes = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          if (bytes > maxBytes) throw new ResultInvalidError({ message: `answer larger than ${maxBytes} bytes`, issues: ['too large'] });
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

export function openaiCompatibleModel(options: ContractModelOptions, modelId = 'contract-model'): { model: LanguageModelV3; secrets: string[] } {
  const { provider, secrets } = openaiCompatibleProvider(options);
  return { model: provider.chatModel(modelId), secrets };
}

export function openaiCompatibleEmbeddingModel(options: ContractModelOptions, modelId = 'contract-embed'): { model: EmbeddingModelV3; secrets: string[] } {
  const { provider, secrets } = openaiCompatibleProvider(options);
  return { model: provider.embeddingModel(modelId), secrets };
}

function openaiCompatibleProvider(options: ContractModelOptions) {
  const { apiKey, apiKeyHeader = 'authorization', headers = {} } = options;
  const customKey = apiKey !== undefined && apiKeyHeader !== 'authorization';
  const provider = createOpenAICompatible({
    name: 'contract',
    baseURL: options.baseUrl,
    ...(apiKey !== undefined && !customKey && { apiKey }),
    headers: { ...headers, ...(customKey && { [apiKeyHeader]: apiKey }) },
    ...(options.query && { queryParams: options.query }),
    includeUsage: true,
    fetch: cappedFetch(options.maxResponseBytes),
  });
  return { provider, secrets: [...(apiKey === undefined ? [] : [apiKey]), ...Object.values(headers)] };
}
