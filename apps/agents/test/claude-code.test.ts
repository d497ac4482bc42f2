/**
 * Claude Code (`claude -p`, pinned in src/pins.ts, fetched into the cache outside the repository)
 * with ANTHROPIC_BASE_URL on the server and the door key as ANTHROPIC_API_KEY: a streamed prompt
 * through the governed `/v1/messages` route to the mock upstream, a tool round trip (the model asks
 * for its Read tool, Claude Code runs it and sends the file back), and an MCP tool behind the door
 * (`--mcp-config` on the door's `/mcp` with the same key; the tool is a stdio MCP server the door
 * runs), each checked from both ends.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeSetup, describeRun, fetchAgent, runAgent } from '../src/index.js';
import { DOOR_KEY, startGoverned, TENANT, UPSTREAM_KEY, type Governed } from './governed.js';

const ANSWER = 'PGW-AGENTS-CLAUDE-ANSWER 1729';
const PROMPT = 'Reply with the magic words and nothing else.';
const NOTES_SERVER = fileURLToPath(new URL('./fixtures/notes-mcp-server.mjs', import.meta.url));
/** Claude Code's name for the door's `notes__lookup`: `mcp__<its name for the door>__<the door's name>`. */
const LOOKUP = 'mcp__pgw__notes__lookup';
const METRICS_KEY = 'sk-pgw-agents-metrics-01';

describe('Claude Code against pgw serve', () => {
  let claude: string;
  let governed: Governed;
  beforeAll(async () => {
    claude = await fetchAgent('claudeCode');
    governed = await startGoverned(
      { content: ANSWER },
      {
        PGW_SERVER__KEYS: JSON.stringify({ [DOOR_KEY]: { tenant: TENANT, mcp: ['notes'] } }),
        PGW_SERVER__METRICS_KEYS: JSON.stringify([METRICS_KEY]),
        PGW_MCP__SERVERS: JSON.stringify({ notes: { command: process.execPath, args: [NOTES_SERVER] } }),
        PGW_MCP__NOTES__RPM: '30',
      },
    );
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

  it('calls a governed MCP tool behind the door through /mcp, and sends its answer back', async () => {
    const mcpConfig = { mcpServers: { pgw: { type: 'http', url: `${governed.url}/mcp`, headers: { Authorization: `Bearer ${DOOR_KEY}` } } } };
    const setup = await claudeCodeSetup(governed.url, DOOR_KEY, 'What does the launch note say?', ['--mcp-config', JSON.stringify(mcpConfig), '--strict-mcp-config', '--allowedTools', LOOKUP]);
    governed.mock.setSource('main', {
      steps: [
        { kind: 'tool_calls', calls: [{ id: 'toolu_pgw_search', name: 'ToolSearch', arguments: { query: `select:${LOOKUP}`, max_results: 1 } }] },
        { kind: 'tool_calls', calls: [{ id: 'toolu_pgw_mcp', name: LOOKUP, arguments: { topic: 'launch' } }] },
      ],
      content: 'The note says the launch code is 4096' });
    const before = governed.chats().length;
    try {
      const run = await runAgent(claude, setup.args, { cwd: setup.cwd, env: { ...setup.env, MCP_CONNECTION_NONBLOCKING: 'false' }, timeoutMs: 90_000 });
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout.trim()).toBe('The note says the launch code is 4096');
    } finally {
      await setup.dispose();
    }
    const chats = (await expectGoverned()).slice(before);
    // Claude Code listed the door's tool through /mcp and deferred it (its default): the model loaded
    // it with ToolSearch, whose tool_reference reached the upstream as a line, with the tool offered …
    type Chat = { messages: { role: string; tool_call_id?: string; content: unknown }[]; tools?: { function: { name: string } }[] };
    const bodies = chats.map((chat) => chat.body as Chat);
    expect(JSON.stringify(bodies[0]!.messages)).toContain(LOOKUP);
    expect(bodies[1]!.messages.find((message) => message.tool_call_id === 'toolu_pgw_search')).toMatchObject({ role: 'tool', content: `Tool loaded: ${LOOKUP}\n` });
    expect(bodies[1]!.tools?.map((tool) => tool.function.name)).toContain(LOOKUP);
    // … then called it at the door when the model asked, and sent the stdio server's answer back.
    const answer = bodies.at(-1)!.messages.find((message) => message.tool_call_id === 'toolu_pgw_mcp');
    expect(answer).toMatchObject({ role: 'tool' });
    expect(JSON.stringify(answer!.content)).toContain('the launch code is 4096');
    expect(bodies).toHaveLength(3);
    // The door: the MCP requests answered for the key's tenant, the call governed and counted.
    const mcpLines = governed.access.filter((entry) => entry.route === '/mcp');
    expect(mcpLines.length).toBeGreaterThan(0);
    expect(mcpLines.every((entry) => entry.tenant === TENANT)).toBe(true);
    // Its one refusal: the probe it sends first (`server/discover`, a later protocol's) is no initialize
    // and has no session, which the spec answers 400; it then initializes.
    expect(mcpLines.filter((entry) => entry.status >= 300).map((entry) => [entry.method, entry.status])).toEqual([['POST', 400]]);
    const metrics = await (await fetch(`${governed.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_KEY}` } })).text();
    expect(metrics).toMatch(/pgw_mcp_tool_calls_total\{server="notes",tool="lookup",outcome="ok"\} 1\b/);
    expect((await governed.server.mcpStatus())?.[0]).toMatchObject({ server: 'notes', health: 'up', breaker: 'closed' });
  }, 120_000);
});
