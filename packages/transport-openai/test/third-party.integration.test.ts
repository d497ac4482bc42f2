/**
 * Against software nobody here wrote: @dwmkerr/mock-llm (pinned), an OpenAI-compatible mock server
 * from the npm registry, started on loopback by this test. It reports errors inside a 200 event
 * stream (`data: {"error": …}`), and its rules make it a relay that answers only requests carrying
 * its routing header and query.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestRejectedError, SourceDeadError, TransientError, type ChatRequest } from '@pgw/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiCompatible, type OpenAICompatibleOptions } from '../src/index.js';
import { attemptContext, thrown } from './helpers.js';

const completion = (content: string) =>
  JSON.stringify({
    id: 'chatcmpl-relay',
    object: 'chat.completion',
    created: 1,
    model: 'relay-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  });
const error = (type: string, code: string | null = null) => JSON.stringify({ error: { message: `relay says ${type}`, type, code } });
const onMessage = (word: string) => `contains(body.messages[-1].content, '${word}')`;

/** mock-llm rules: the last match wins. */
const CONFIG = {
  streaming: { chunkSize: 4, chunkIntervalMs: 5 },
  rules: [
    { path: '/v1/chat/completions', match: '@', response: { status: 404, content: error('invalid_request_error', 'route_not_found') } },
    {
      path: '/v1/chat/completions',
      match: "headers.\"x-relay-route\" == 'blue' && query.\"api-version\" == '2024-10-21' && headers.\"api-key\" == 'relay-key'",
      response: { status: 200, content: completion('hello through the relay') },
    },
    { path: '/v1/chat/completions', match: onMessage('bad-request'), response: { status: 400, content: error('invalid_request_error') } },
    { path: '/v1/chat/completions', match: onMessage('bad-key'), response: { status: 401, content: error('authentication_error') } },
    { path: '/v1/chat/completions', match: onMessage('slow-down'), response: { status: 429, content: error('requests', 'rate_limit_exceeded') } },
    { path: '/v1/chat/completions', match: onMessage('overloaded'), response: { status: 503, content: error('server_error') } },
  ],
};

const ROUTED: Partial<OpenAICompatibleOptions> = {
  apiKey: 'relay-key',
  apiKeyHeader: 'api-key',
  headers: { 'x-relay-route': 'blue' },
  query: { 'api-version': '2024-10-21' },
};

let relay: ChildProcess | undefined;
let baseUrl = '';
let configDir = '';

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'pgw-mock-llm-'));
  const configPath = join(configDir, 'mock-llm.json');
  writeFileSync(configPath, JSON.stringify(CONFIG));
  const port = await freePort();
  const main = createRequire(import.meta.url).resolve('@dwmkerr/mock-llm/dist/main.js');
  relay = spawn(process.execPath, [main, '--config', configPath], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  relay.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    relay!.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('server running')) resolve();
    });
    relay!.once('exit', (code) => reject(new Error(`mock-llm exited (${code}): ${output}`)));
  });
  baseUrl = `http://127.0.0.1:${port}/v1`;
}, 30_000);

afterAll(async () => {
  if (relay !== undefined && relay.exitCode === null) {
    const exited = once(relay, 'exit');
    relay.kill('SIGTERM');
    await exited;
  }
  if (configDir !== '') rmSync(configDir, { recursive: true, force: true });
});

const request = (content: string): ChatRequest => ({ messages: [{ role: 'user', content }], sampling: {} });

async function chat(content: string, options: Partial<OpenAICompatibleOptions>, stream: boolean) {
  const model = openaiCompatible({ baseUrl, model: 'relay-model', stream, ...options });
  try {
    const attempt = Object.assign(attemptContext(), { sourceName: 'relay' });
    return await (stream ? model.stream(request(content), attempt) : model.generate(request(content), attempt));
  } finally {
    await model.close();
  }
}

describe('a relay that needs its own routing header, query and key header', () => {
  it.each([true, false])('answers with them (stream: %s)', async (stream) => {
    expect((await chat('hello', ROUTED, stream)).content).toBe('hello through the relay');
  });

  it('refuses without them (a 404 of the route: the source is misconfigured)', async () => {
    expect(await thrown(() => chat('hello', {}, false))).toBeInstanceOf(SourceDeadError);
  });
});

describe('errors inside a 200 event stream', () => {
  it.each([
    ['bad-request', RequestRejectedError, undefined],
    ['bad-key', SourceDeadError, undefined],
    ['slow-down', TransientError, 'rate_limited'],
    ['overloaded', TransientError, 'server_error'],
  ] as const)('%s → %o, not a generic server error', async (word, category, kind) => {
    const failure = await thrown(() => chat(word, ROUTED, true));
    expect(failure).toBeInstanceOf(category);
    expect(failure).toMatchObject({ sourceName: 'relay', statusCode: 200, ...(kind !== undefined && { transientKind: kind }) });
  });

  it('the same errors as HTTP statuses when not streaming', async () => {
    expect(await thrown(() => chat('bad-request', ROUTED, false))).toBeInstanceOf(RequestRejectedError);
    expect(await thrown(() => chat('slow-down', ROUTED, false))).toMatchObject({ statusCode: 429, transientKind: 'rate_limited' });
  });
});

/** A loopback port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
