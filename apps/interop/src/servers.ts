import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { request } from 'undici';
import { startChildServer, type ChildServer, type StartOptions } from './child-server.js';

const require = createRequire(import.meta.url);
const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

/** A mock-llm rule set: `{ streaming?, rules: [{ path, method?, match?, sequence?, response: { status, content } }] }`. */
export interface MockLlmConfig {
  streaming?: { chunkSize?: number; chunkIntervalMs?: number };
  rules: object[];
}

export interface MockLlmServer extends ChildServer {
  /** Replaces the whole rule set (`POST /config`) and resets sequence counters (`DELETE /config` first). */
  configure(config: MockLlmConfig): Promise<void>;
}

/**
 * `@dwmkerr/mock-llm`: a scriptable OpenAI-compatible mock (JMESPath-matched rules, templated
 * bodies). Streamed answers to a rule with status >= 400 or an `error` body arrive as
 * `200 text/event-stream` with one `data: {"error": …}` event.
 */
export async function startMockLlm(config?: MockLlmConfig, options?: StartOptions): Promise<MockLlmServer> {
  const dir = packageDir('@dwmkerr/mock-llm');
  // Its cwd holds no mock-llm.yaml, so it starts on its built-in echo rule until configured.
  const server = await startChildServer(
    { name: '@dwmkerr/mock-llm', entry: `${dir}/dist/main.js`, cwd: dir, env: { HOST: '127.0.0.1', PORT: '0' } },
    options,
  );
  const configure = async (next: MockLlmConfig): Promise<void> => {
    await send(server.url, 'DELETE', '/config');
    await send(server.url, 'POST', '/config', next);
  };
  try {
    if (config) await configure(config);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { ...server, configure };
}

async function send(base: string, method: 'POST' | 'DELETE', path: string, body?: object): Promise<void> {
  const res = await request(`${base}${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    ...(body ? { body: JSON.stringify(body) } : {}),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`mock-llm ${method} ${path} answered ${res.statusCode}: ${text.slice(0, 500)}`);
}

/**
 * `@portkey-ai/gateway`: the Portkey AI gateway's own Node server (`build/start-server.js`).
 * Routes by `x-portkey-provider` (+ `x-portkey-custom-host` for a self-hosted upstream).
 */
export function startPortkeyGateway(options?: StartOptions): Promise<ChildServer> {
  const dir = packageDir('@portkey-ai/gateway');
  return startChildServer(
    { name: '@portkey-ai/gateway', entry: `${dir}/build/start-server.js`, args: ['--port=0', '--headless'], cwd: dir },
    options,
  );
}

/**
 * `@llmops/gateway`: a fork of the Portkey gateway published as a Hono app, served here by
 * `@hono/node-server`. Routes by `x-llmops-provider` (+ `x-llmops-custom-host`).
 */
export function startLlmopsGateway(options?: StartOptions): Promise<ChildServer> {
  return startChildServer(
    { name: '@llmops/gateway', entry: new URL('./llmops-entry.mjs', import.meta.url).pathname, args: ['0'], cwd: packageDir('@llmops/gateway') },
    options,
  );
}
