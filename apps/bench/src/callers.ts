/**
 * The chat contenders: each sends the same non-streaming request to the same mock source over
 * keep-alive connections (the same connection count for all), and checks the answer it gets.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { toLanguageModel } from '@pgw/ai-sdk';
import { GatewayClient, type GatewayClientOverrides, type GatewaySettings } from '@pgw/client';
import type { TelemetryRecorder } from '@pgw/core';
import { generateText } from 'ai';
import OpenAI from 'openai';
import { NEVER_ABORTED } from '@pgw/core/internal';
import { createAgent } from '@pgw/http';
import { openaiCompatible } from '@pgw/transport-openai';
import { Agent, Pool, fetch as undiciFetch } from 'undici';
import { API_KEY } from './gateway-settings.js';
import { EXPECTED_CHAT_ANSWER, MESSAGES, MODEL } from './mock-script.js';

/** Connections per origin of every contender, the governed client's included (its own default has no bound). */
export const CONNECTIONS = 64;

export interface Caller {
  name: string;
  /** One call; rejects if the answer is not the mock's. */
  call(): Promise<void>;
  close(): Promise<void>;
  /** The telemetry recorder of a governed contender that has one. */
  recorder?: TelemetryRecorder;
}

function checkAnswer(contender: string, content: unknown): void {
  if (content !== EXPECTED_CHAT_ANSWER) {
    throw new Error(`${contender}: unexpected answer ${JSON.stringify(content)?.slice(0, 200)}`);
  }
}

/** The baseline: an undici Pool, JSON in, JSON out, nothing else. */
export function rawUndiciCaller(name: string, baseUrl: string, connections: number): Caller {
  const url = new URL(`${baseUrl}/chat/completions`);
  const pool = new Pool(url.origin, { connections });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };
  return {
    name,
    async call() {
      const { statusCode, body } = await pool.request({
        method: 'POST',
        path: url.pathname,
        headers,
        body: JSON.stringify({ model: MODEL, messages: MESSAGES, stream: false }),
      });
      const answer = (await body.json()) as { choices?: { message?: { content?: unknown } }[] };
      if (statusCode !== 200) throw new Error(`${name}: HTTP ${statusCode}`);
      checkAnswer(name, answer.choices?.[0]?.message?.content);
    },
    close: () => pool.close(),
  };
}

/** The provider model the gateway builds for the source, called directly: HTTP layer and wire format, no governance. */
export function modelCaller(name: string, baseUrl: string, connections: number): Caller {
  const dispatcher = createAgent({ connections });
  const model = openaiCompatible({ baseUrl, apiKey: API_KEY, model: MODEL, stream: false, dispatcher });
  const attempt = { signal: NEVER_ABORTED, sourceName: 'bench', timeoutMs: 60_000, callId: 'bench', logicalCallId: 'bench' };
  return {
    name,
    async call() {
      checkAnswer(name, (await model.generate({ messages: MESSAGES, sampling: {} }, attempt)).content);
    },
    async close() {
      await model.close();
      await dispatcher.close();
    },
  };
}

/** A GatewayClient built the way an application builds one (`fromSettings`), its source asked not to stream. */
export async function gatewayCaller(
  name: string,
  settings: GatewaySettings,
  overrides: GatewayClientOverrides & { ownedRecorder?: TelemetryRecorder; tenants?: readonly string[] } = {},
): Promise<Caller> {
  const { ownedRecorder, tenants, ...rest } = overrides;
  const { client, close } = await plainGatewayClient(settings, { ...(ownedRecorder && { recorder: ownedRecorder }), ...rest });
  // Calls take the given tenants in turn.
  let calls = 0;
  return {
    name,
    ...(ownedRecorder && { recorder: ownedRecorder }),
    async call() {
      const options = tenants === undefined ? {} : { tenantId: tenants[calls++ % tenants.length]! };
      checkAnswer(name, (await client.chat(MESSAGES, options)).content);
    },
    async close() {
      await close();
      await ownedRecorder?.close();
    },
  };
}

/** The governed contender over an agent of CONNECTIONS (unless one is given), closed after the client. */
async function plainGatewayClient(settings: GatewaySettings, overrides: GatewayClientOverrides = {}): Promise<{ client: GatewayClient; close(): Promise<void> }> {
  const plain = { ...settings, sources: settings.sources.map((source) => ({ ...source, stream: false })) };
  const owned = overrides.dispatcher === undefined ? createAgent({ connections: CONNECTIONS }) : undefined;
  const client = await GatewayClient.fromSettings(plain, { ...overrides, ...(owned && { dispatcher: owned }) });
  return {
    client,
    async close() {
      await client.close();
      await owned?.close();
    },
  };
}

/** AI SDK code governed: `generateText` over `toLanguageModel` of a GatewayClient (memory): the bridge's cost over the plain governed call. */
export async function aiSdkBridgeCaller(name: string, settings: GatewaySettings): Promise<Caller> {
  const { client, close } = await plainGatewayClient(settings);
  const model = toLanguageModel(client);
  return {
    name,
    async call() {
      const result = await generateText({ model, messages: MESSAGES, maxRetries: 2 });
      checkAnswer(name, result.text);
    },
    close,
  };
}

/** undici's fetch over an Agent with the contenders' connection count, for the SDKs. */
function pooledFetch(connections: number): { fetch: typeof globalThis.fetch; agent: Agent } {
  const agent = new Agent({ connections });
  const fetch = ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher: agent })) as unknown as typeof globalThis.fetch;
  return { fetch, agent };
}

/** The official `openai` SDK, retries on (its default `maxRetries: 2`). */
export function openAiSdkCaller(name: string, baseUrl: string, connections: number): Caller {
  const { fetch, agent } = pooledFetch(connections);
  const client = new OpenAI({ baseURL: baseUrl, apiKey: API_KEY, maxRetries: 2, fetch });
  return {
    name,
    async call() {
      const completion = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: false });
      checkAnswer(name, completion.choices[0]?.message.content);
    },
    close: () => agent.close(),
  };
}

/** The Vercel AI SDK: `generateText` over `createOpenAICompatible`, its default `maxRetries: 2`. */
export function aiSdkCaller(name: string, baseUrl: string, connections: number): Caller {
  const { fetch, agent } = pooledFetch(connections);
  const provider = createOpenAICompatible({ name: 'bench', baseURL: baseUrl, apiKey: API_KEY, fetch });
  const model = provider.chatModel(MODEL);
  return {
    name,
    async call() {
      const result = await generateText({ model, messages: MESSAGES, maxRetries: 2 });
      checkAnswer(name, result.text);
    },
    close: () => agent.close(),
  };
}
