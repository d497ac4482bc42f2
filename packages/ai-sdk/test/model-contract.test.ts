/** fromLanguageModel and fromEmbeddingModel over the real `@ai-sdk/openai-compatible` provider passes the model contract suite of @pgw/testkit. */
import { chatModelContract, embeddingModelContract } from '@pgw/testkit';
import { fromEmbeddingModel, fromLanguageModel } from '../src/index.js';
import { openaiCompatibleEmbeddingModel, openaiCompatibleModel } from './ai-sdk-providers.js';

chatModelContract('fromLanguageModel(@ai-sdk/openai-compatible)', (options) => {
  const { model, secrets } = openaiCompatibleModel(options);
  return fromLanguageModel(model, { secrets, capabilities: { streaming: options.stream !== false } });
});

embeddingModelContract('fromEmbeddingModel(@ai-sdk/openai-compatible)', (options) => {
  const { model, secrets } = openaiCompatibleEmbeddingModel(options);
  return fromEmbeddingModel(model, { secrets });
});
