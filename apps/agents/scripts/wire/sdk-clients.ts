/**
 * The client libraries the workspace pins (the server's tests use them too): the openai SDK, the AI
 * SDK with its OpenAI (chat and Responses) and Anthropic providers, and the Anthropic SDK, each called
 * as its documentation shows, with its defaults.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import OpenAI from 'openai';
import { CITY_JSON, CITY_SCHEMA, KEY, manifestVersion, WEATHER, WEATHER_CALL, WEATHER_PROMPT, type ClientRecording, type Scenario } from './recording.js';

const MODULES = new URL('../../node_modules/', import.meta.url);
const GPT = 'gpt-4o-mini';
const CLAUDE = 'claude-sonnet-4-5';

const openai = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY, maxRetries: 0 });

export const openaiSdk: ClientRecording = {
  client: 'openai-sdk',
  version: () => manifestVersion(new URL('openai/package.json', MODULES)),
  scenarios: [
    {
      requests: ['chat, plain'],
      run: async (url) => void (await openai(url).chat.completions.create({ model: GPT, messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Say hello.' }] })),
    },
    {
      requests: ['chat, streamed, with stream_options'],
      run: async (url) => {
        const stream = await openai(url).chat.completions.create({ model: GPT, messages: [{ role: 'user', content: 'Say hello.' }], stream: true, stream_options: { include_usage: true } });
        for await (const chunk of stream) void chunk;
      },
    },
    {
      requests: ['chat, with function tools', 'chat, tool-result turn'],
      answers: [WEATHER_CALL],
      run: async (url) => {
        const client = openai(url);
        const tools = [{ type: 'function' as const, function: WEATHER }];
        const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: WEATHER_PROMPT }];
        const first = await client.chat.completions.create({ model: GPT, messages, tools });
        const asked = first.choices[0]!.message;
        messages.push(asked, ...(asked.tool_calls ?? []).map((call) => ({ role: 'tool' as const, tool_call_id: call.id, content: 'sunny, 24 °C' })));
        await client.chat.completions.create({ model: GPT, messages, tools });
      },
    },
    {
      requests: ['chat, response_format json_schema'],
      fallback: CITY_JSON,
      run: async (url) =>
        void (await openai(url).chat.completions.create({
          model: GPT,
          messages: [{ role: 'user', content: 'Name a city and its country.' }],
          response_format: { type: 'json_schema', json_schema: { name: 'city', strict: true, schema: CITY_SCHEMA } },
        })),
    },
    {
      requests: ['embeddings, two inputs (the SDK asks for base64)'],
      run: async (url) => void (await openai(url).embeddings.create({ model: 'text-embedding-3-small', input: ['hello', 'world'] })),
    },
    {
      requests: ['responses, plain'],
      run: async (url) => void (await openai(url).responses.create({ model: GPT, instructions: 'You are terse.', input: 'Say hello.' })),
    },
    {
      requests: ['responses, streamed'],
      run: async (url) => {
        const stream = await openai(url).responses.create({ model: GPT, input: 'Say hello.', stream: true });
        for await (const event of stream) void event;
      },
    },
    {
      requests: ['responses, with a function tool', 'responses, tool-result turn (input items, no previous_response_id)'],
      answers: [WEATHER_CALL],
      run: async (url) => {
        const client = openai(url);
        const tools = [{ type: 'function' as const, ...WEATHER, strict: true }];
        const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: WEATHER_PROMPT }];
        const first = await client.responses.create({ model: GPT, input, tools });
        for (const item of first.output) {
          if (item.type !== 'function_call') continue;
          input.push(item, { type: 'function_call_output', call_id: item.call_id, output: 'sunny, 24 °C' });
        }
        await client.responses.create({ model: GPT, input, tools });
      },
    },
    {
      requests: ['responses, text.format json_schema'],
      fallback: CITY_JSON,
      run: async (url) =>
        void (await openai(url).responses.create({ model: GPT, input: 'Name a city and its country.', text: { format: { type: 'json_schema', name: 'city', strict: true, schema: CITY_SCHEMA } } })),
    },
    {
      requests: ['responses, reasoning effort'],
      run: async (url) => void (await openai(url).responses.create({ model: 'o4-mini', input: 'Is 7919 prime?', reasoning: { effort: 'low' } })),
    },
  ],
};

/** The AI SDK's calls, the same on each provider's model. */
function aiSdkScenarios(label: string, model: (url: string) => LanguageModel): Scenario[] {
  const weather = tool({ description: WEATHER.description, inputSchema: jsonSchema<{ city: string }>(WEATHER.parameters), execute: async () => 'sunny, 24 °C' });
  return [
    { requests: [`${label}, generateText`], run: async (url) => void (await generateText({ model: model(url), system: 'You are terse.', prompt: 'Say hello.', maxRetries: 0 })) },
    {
      requests: [`${label}, streamText`],
      run: async (url) => {
        const result = streamText({ model: model(url), prompt: 'Say hello.', maxRetries: 0 });
        for await (const part of result.textStream) void part;
      },
    },
    {
      requests: [`${label}, generateText with a tool`, `${label}, generateText tool-result turn`],
      answers: [WEATHER_CALL],
      run: async (url) => void (await generateText({ model: model(url), prompt: WEATHER_PROMPT, tools: { [WEATHER.name]: weather }, stopWhen: stepCountIs(2), maxRetries: 0 })),
    },
    {
      requests: [`${label}, generateObject`],
      fallback: CITY_JSON,
      run: async (url) => void (await generateObject({ model: model(url), schema: jsonSchema(CITY_SCHEMA), prompt: 'Name a city and its country.', maxRetries: 0 })),
    },
  ];
}

export const aiSdk: ClientRecording = {
  client: 'ai-sdk',
  version: () => manifestVersion(new URL('ai/package.json', MODULES)),
  scenarios: [
    ...aiSdkScenarios('openai.chat', (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: KEY }).chat(GPT)),
    ...aiSdkScenarios('openai.responses', (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: KEY }).responses(GPT)),
    ...aiSdkScenarios('anthropic', (url) => createAnthropic({ baseURL: `${url}/v1`, apiKey: KEY })(CLAUDE)),
  ],
};

const anthropic = (url: string) => new Anthropic({ baseURL: url, apiKey: KEY, maxRetries: 0 });

export const anthropicSdk: ClientRecording = {
  client: 'anthropic-sdk',
  version: () => manifestVersion(new URL('@anthropic-ai/sdk/package.json', MODULES)),
  scenarios: [
    {
      requests: ['messages, plain'],
      run: async (url) => void (await anthropic(url).messages.create({ model: CLAUDE, max_tokens: 1024, system: 'You are terse.', messages: [{ role: 'user', content: 'Say hello.' }] })),
    },
    {
      requests: ['messages, streamed'],
      run: async (url) => void (await anthropic(url).messages.stream({ model: CLAUDE, max_tokens: 1024, messages: [{ role: 'user', content: 'Say hello.' }] }).finalMessage()),
    },
    {
      requests: ['messages, with a tool', 'messages, tool_result turn'],
      answers: [WEATHER_CALL],
      run: async (url) => {
        const client = anthropic(url);
        const tools = [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.parameters }];
        const messages: Anthropic.MessageParam[] = [{ role: 'user', content: WEATHER_PROMPT }];
        const first = await client.messages.create({ model: CLAUDE, max_tokens: 1024, messages, tools });
        const results = first.content.flatMap((block) => (block.type === 'tool_use' ? [{ type: 'tool_result' as const, tool_use_id: block.id, content: 'sunny, 24 °C' }] : []));
        messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: results });
        await client.messages.create({ model: CLAUDE, max_tokens: 1024, messages, tools });
      },
    },
    {
      requests: ['messages, with extended thinking'],
      run: async (url) =>
        void (await anthropic(url).messages.create({ model: CLAUDE, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'Is 7919 prime?' }] })),
    },
  ],
};
