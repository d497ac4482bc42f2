/** fromLanguageModel over the real `@ai-sdk/openai-compatible` provider passes the model contract suite of @pgw/testkit. */
import { chatModelContract } from '@pgw/testkit';
import { fromLanguageModel } from '../src/index.js';
import { openaiCompatibleModel } from './ai-sdk-providers.js';

chatModelContract('fromLanguageModel(@ai-sdk/openai-compatible)', (options) => {
  const { model, secrets } = openaiCompatibleModel(options);
  return fromLanguageModel(model, { secrets, capabilities: { streaming: options.stream !== false } });
});
