/**
 * Claude Code (`claude -p`, pinned in src/pins.ts, fetched into the cache outside the repository)
 * with ANTHROPIC_BASE_URL on the server and the door key as ANTHROPIC_API_KEY: a streamed prompt
 * through the governed `/v1/messages` route to the mock upstream, then a tool round trip (the model
 * asks for its Read tool, Claude Code runs it and sends the file back), checked from both ends.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeSetup, describeRun, fetchAgent, runAgent } from '../src/index.js';
import { DOOR_KEY, startGoverned, TENANT, UPSTREAM_KEY, type Governed } from './governed.js';

const ANSWER = 'PGW-AGENTS-CLAUDE-ANSWER 1729';
const PROMPT = 'Reply with the magic words and nothing else.';

describe('Claude Code against pgw serve', () => {
  let claude: string;
  let governed: Governed;
  beforeAll(async () => {
    claude = await fetchAgent('claudeCode');
    governed = await startGoverned({ content: ANSWER });
  }, 360_000);
  afterAll(() => governed?.close());

  /** The server's side of every test: each /v1 request on the Messages route answered 200 for the key's tenant, each call ok. */
  async function expectGoverned() {
    const line = await governed.accessLine('/v1/messages');
    expect(line).toMatchObject({ method: 'POST', status: 200, tenant: TENANT });
    const v1 = governed.access.filter((entry) => entry.route?.startsWith('/v1/'));
    expect(v1.map((entry) => [entry.route, entry.status])).toEqual(v1.map((entry) => [entry.route === '/v1/messages/count_tokens' ? entry.route : '/v1/messages', 200]));
    for (const entry of v1.filter((candidate) => candidate.route === '/v1/messages')) {
      expect(governed.calls.find((call) => call.call.logicalCallId === entry.callId)).toMatchObject({ status: 'ok', call: { tenantId: TENANT } });
    }
    const chats = governed.chats();
    expect(chats.length).toBeGreaterThan(0);
    expect(chats.every((chat) => chat.headers['authorization'] === `Bearer ${UPSTREAM_KEY}`)).toBe(true);
    expect(JSON.stringify(chats.map((request) => request.headers))).not.toContain(DOOR_KEY);
    return chats;
  }

  it('answers a one-shot prompt through /v1/messages with the door key, streamed', async () => {
    const setup = await claudeCodeSetup(governed.url, DOOR_KEY, PROMPT);
    try {
      const run = await runAgent(claude, setup.args, { cwd: setup.cwd, env: setup.env, timeoutMs: 90_000 });
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout.trim()).toBe(ANSWER);
    } finally {
      await setup.dispose();
    }
    const chat = (await expectGoverned()).at(-1)!;
    expect(chat.body).toMatchObject({ stream: true });
    expect(JSON.stringify((chat.body as { messages: unknown[] }).messages)).toContain(PROMPT);
  }, 120_000);

  it('runs its Read tool when the model asks, and sends the file back', async () => {
    const setup = await claudeCodeSetup(governed.url, DOOR_KEY, 'What does note.txt say?');
    const note = path.join(setup.cwd, 'note.txt');
    await fs.writeFile(note, 'the secret is 8128\n');
    governed.mock.setSource('main', { steps: [{ kind: 'tool_calls', calls: [{ id: 'toolu_pgw_1', name: 'Read', arguments: { file_path: note } }] }], content: 'It says: the secret is 8128' });
    try {
      const run = await runAgent(claude, setup.args, { cwd: setup.cwd, env: setup.env, timeoutMs: 90_000 });
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout.trim()).toBe('It says: the secret is 8128');
    } finally {
      await setup.dispose();
    }
    const chats = await expectGoverned();
    const last = (chats.at(-1)!.body as { messages: { role: string; tool_call_id?: string; content: unknown }[] }).messages;
    const result = last.find((message) => message.role === 'tool');
    expect(result).toMatchObject({ tool_call_id: 'toolu_pgw_1' });
    expect(JSON.stringify(result!.content)).toContain('the secret is 8128');
  }, 120_000);
});
