/**
 * Codex CLI (`codex exec`, pinned in src/pins.ts, fetched into the cache outside the repository) on
 * a custom provider with `wire_api = "responses"`: a streamed prompt through the governed
 * `/v1/responses` route to the mock upstream, then a tool round trip (the model asks for its shell
 * tool, Codex runs it and sends the output back), checked from both ends. Codex runs with its defaults
 * and the provider block alone: its hosted `web_search` tool is dropped and named, its multi-agent
 * `namespace` tool offered upstream flattened.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexSetup, describeRun, fetchAgent, runAgent } from '../src/index.js';
import { DOOR_KEY, startGoverned, TENANT, UPSTREAM_KEY, type Governed } from './governed.js';

const ANSWER = 'PGW-AGENTS-CODEX-ANSWER 4711';
const PROMPT = 'Reply with the magic words and nothing else.';

type ChatBody = { stream?: boolean; messages: { role: string; tool_call_id?: string; content: unknown }[]; tools?: { type: string; function: { name: string } }[] };

describe('Codex CLI against pgw serve', () => {
  let codex: string;
  let governed: Governed;
  beforeAll(async () => {
    codex = await fetchAgent('codex');
    governed = await startGoverned({ content: ANSWER });
  }, 360_000);
  afterAll(() => governed?.close());

  /** One prompt in a fresh CODEX_HOME; resolves to its final message once it exited 0. */
  async function exec(prompt: string, prepare: (cwd: string) => Promise<void> = async () => {}): Promise<{ stdout: string; lastMessage: string }> {
    const setup = await codexSetup(governed.url, DOOR_KEY, prompt);
    try {
      await prepare(setup.cwd);
      const run = await runAgent(codex, setup.args, { cwd: setup.cwd, env: setup.env, timeoutMs: 90_000 });
      expect(run.code, describeRun(run)).toBe(0);
      return { stdout: run.stdout, lastMessage: (await fs.readFile(setup.lastMessage, 'utf8')).trim() };
    } finally {
      await setup.dispose();
    }
  }

  /** The server's side: each /v1 request on the Responses route, answered 200 for the key's tenant, each call ok; the upstream saw its own key only. */
  async function expectGoverned(): Promise<ChatBody> {
    const line = await governed.accessLine('/v1/responses');
    expect(line).toMatchObject({ method: 'POST', status: 200, tenant: TENANT });
    const v1 = governed.access.filter((entry) => entry.route?.startsWith('/v1/'));
    expect(v1.map((entry) => [entry.route, entry.status])).toEqual(v1.map(() => ['/v1/responses', 200]));
    for (const entry of v1) expect(governed.calls.find((call) => call.call.logicalCallId === entry.callId)).toMatchObject({ status: 'ok', call: { tenantId: TENANT } });
    const chats = governed.chats();
    expect(chats.length).toBeGreaterThan(0);
    expect(chats.every((chat) => chat.headers['authorization'] === `Bearer ${UPSTREAM_KEY}`)).toBe(true);
    expect(JSON.stringify(chats.map((request) => request.headers))).not.toContain(DOOR_KEY);
    return chats.at(-1)!.body as ChatBody;
  }

  it('answers a one-shot prompt through /v1/responses with the door key, streamed', async () => {
    const { stdout, lastMessage } = await exec(PROMPT);
    expect(stdout).toContain(ANSWER);
    expect(lastMessage).toBe(ANSWER);
    const chat = await expectGoverned();
    expect(chat.stream).toBe(true);
    expect(JSON.stringify(chat.messages)).toContain(PROMPT);
    const names = chat.tools!.map((tool) => tool.function.name);
    expect(names).toContain('exec_command');
    expect(names.some((name) => name.startsWith('multi_agent_v1__'))).toBe(true);
    expect(governed.calls.at(-1)!.call.meta).toMatchObject({ droppedTools: ['web_search'] });
  }, 120_000);

  it('runs its shell tool when the model asks, and sends the output back', async () => {
    governed.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'call_pgw_1', name: 'exec_command', arguments: { cmd: 'cat note.txt' } }] }], content: 'It says: the secret is 8128' });
    const { lastMessage } = await exec('What does note.txt say?', (cwd) => fs.writeFile(path.join(cwd, 'note.txt'), 'the secret is 8128\n'));
    expect(lastMessage).toBe('It says: the secret is 8128');
    const result = (await expectGoverned()).messages.find((message) => message.role === 'tool');
    expect(result).toMatchObject({ tool_call_id: 'call_pgw_1' });
    expect(JSON.stringify(result!.content)).toContain('the secret is 8128');
  }, 120_000);
});
