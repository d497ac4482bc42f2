/**
 * Records the request bodies real clients send, into test/fixtures/<client>.json (the format the
 * table-driven wire test reads): a loopback capture server answers every request with a 500, so
 * each client sends its body once (no retries) and the call fails, which is all this needs.
 * Run: `pnpm exec tsx test/record-fixtures.ts` in packages/wire, with the clients of devDependencies.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

type Protocol = 'chat' | 'responses' | 'messages' | 'embeddings';
interface Recorded {
  name: string;
  protocol: Protocol;
  path: string;
  body: unknown;
}

const captured: { path: string; body: unknown }[] = [];
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    captured.push({ path: new URL(request.url ?? '/', 'http://capture').pathname, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
    response.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' }).end('{"error":{"message":"recorded","type":"server_error"}}');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Runs one client call and keeps the body it sent. */
async function record(name: string, protocol: Protocol, call: () => Promise<unknown>): Promise<Recorded> {
  const before = captured.length;
  await call().catch(() => undefined);
  const sent = captured[before];
  if (sent === undefined || captured.length !== before + 1) throw new Error(`${name}: expected one request, got ${captured.length - before}`);
  return { name, protocol, ...sent };
}

const versionOf = (name: string) => (JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;
const RECORDED_WITH = 'packages/wire/test/record-fixtures.ts';

const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const capital = { type: 'object', properties: { city: { type: 'string' }, country: { type: 'string' } }, required: ['city', 'country'], additionalProperties: false };

const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'recording', maxRetries: 0 });
const drain = async (stream: AsyncIterable<unknown>) => {
  for await (const _event of stream);
};
const openaiRequests = [
  await record('chat, plain', 'chat', () => openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }] })),
  await record('chat, streamed, with tools', 'chat', async () =>
    drain(
      await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'developer', content: 'Use tools.' }, { role: 'user', content: 'Weather in Paris?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'The weather of a city', parameters: weather, strict: true } }],
        tool_choice: 'auto',
      }),
    ),
  ),
  await record('chat, a tool result sent back', 'chat', () =>
    openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 21°C' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather } }],
    }),
  ),
  await record('chat, structured output (response_format json_schema), reasoning effort', 'chat', () =>
    openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Capital of Norway?' }] }],
      response_format: { type: 'json_schema', json_schema: { name: 'capital', schema: capital, strict: true } },
      reasoning_effort: 'low',
      max_completion_tokens: 64,
    }),
  ),
  await record('responses, plain string input', 'responses', () => openai.responses.create({ model: 'gpt-4o-mini', input: 'Hello', instructions: 'Be brief.' })),
  await record('responses, streamed, with tools', 'responses', async () =>
    drain(
      await openai.responses.create({
        model: 'gpt-4o-mini',
        stream: true,
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] }],
        tools: [
          { type: 'function', name: 'get_weather', parameters: weather, strict: true },
          { type: 'custom', name: 'run_sql', description: 'Runs one SQL query' },
        ],
        tool_choice: 'auto',
      }),
    ),
  ),
  await record('responses, a function call output sent back, reasoning item', 'responses', () =>
    openai.responses.create({
      model: 'gpt-4o-mini',
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Call the tool.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'Sunny, 21°C' },
      ],
      tools: [{ type: 'function', name: 'get_weather', parameters: weather, strict: true }],
      reasoning: { effort: 'medium' },
    }),
  ),
  await record('responses, structured output (text.format json_schema)', 'responses', () =>
    openai.responses.create({ model: 'gpt-4o-mini', input: 'Capital of Norway?', text: { format: { type: 'json_schema', name: 'capital', schema: capital, strict: true } }, max_output_tokens: 64 }),
  ),
  await record('embeddings, a list of texts', 'embeddings', () => openai.embeddings.create({ model: 'text-embedding-3-small', input: ['first text', 'second text'] })),
  await record('embeddings, one text (the SDK asks base64)', 'embeddings', () => openai.embeddings.create({ model: 'text-embedding-3-small', input: 'one text' })),
];

const anthropic = new Anthropic({ baseURL: base, apiKey: 'recording', maxRetries: 0 });
const anthropicRequests = [
  await record('messages, plain with a system prompt', 'messages', () => anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 256, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello' }] })),
  await record('messages, streamed, with tools and thinking', 'messages', async () =>
    drain(
      anthropic.messages.stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        thinking: { type: 'enabled', budget_tokens: 512 },
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
        tools: [{ name: 'get_weather', description: 'The weather of a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
        tool_choice: { type: 'auto' },
      }),
    ),
  ),
  await record('messages, a tool result sent back', 'messages', () =>
    anthropic.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 256,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny, 21°C' }] },
      ],
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    }),
  ),
];
server.close();

/** Keeps requests another recorder added to the file; this script's own (by name) are replaced. */
function write(file: string, client: string, version: string, requests: Recorded[]): void {
  const url = new URL(`fixtures/${file}`, import.meta.url);
  let others: Recorded[] = [];
  try {
    const names = new Set(requests.map((request) => request.name));
    others = (JSON.parse(readFileSync(url, 'utf8')) as { requests: Recorded[] }).requests.filter((request) => !names.has(request.name));
  } catch {
    // A first recording: no file yet.
  }
  writeFileSync(url, `${JSON.stringify({ client, version, recordedWith: RECORDED_WITH, requests: [...requests, ...others] }, null, 1)}\n`);
}
write('openai-sdk.json', 'openai-sdk', versionOf('openai'), openaiRequests);
write('anthropic-sdk.json', 'anthropic-sdk', versionOf('@anthropic-ai/sdk'), anthropicRequests);
