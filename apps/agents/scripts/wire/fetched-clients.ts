/**
 * The clients too large for the workspace, fetched into the cache outside the repository as the
 * agents' suites fetch them (src/pins.ts): Codex CLI and Claude Code as processes, with the suites'
 * setups (a temporary home, a custom provider / ANTHROPIC_BASE_URL); the OpenAI Agents SDK and
 * LangChain's ChatOpenAI imported in process.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENTS, LIBRARIES, claudeCodeSetup, codexSetup, describeRun, fetchAgent, importLibrary, runAgent, type AgentSetup } from '../../src/index.js';
import { KEY, WEATHER, WEATHER_CALL, WEATHER_PROMPT, type ClientRecording } from './recording.js';

const NOTE = 'the secret is 8128\n';
/** A stdio MCP server whose tool Claude Code defers behind its ToolSearch (the agents suite's own). */
const NOTES_SERVER = fileURLToPath(new URL('../../test/fixtures/notes-mcp-server.mjs', import.meta.url));
const LOOKUP = 'mcp__notes__lookup';

/** Runs one agent prompt in `setup`, after `prepare`; throws unless it exits 0; resolves to the run's home (to scrub). */
async function runIn(bin: string, setup: AgentSetup, prepare?: (cwd: string) => Promise<void>, env: Record<string, string> = {}): Promise<string[]> {
  try {
    await prepare?.(setup.cwd);
    const run = await runAgent(bin, setup.args, { cwd: setup.cwd, env: { ...setup.env, ...env }, timeoutMs: 120_000 });
    if (run.code !== 0) throw new Error(`${path.basename(bin)} failed: ${describeRun(run)}`);
    return [path.dirname(setup.cwd)];
  } finally {
    await setup.dispose();
  }
}

const writeNote = (cwd: string) => fs.writeFile(path.join(cwd, 'note.txt'), NOTE);
const pinnedVersion = (spec: string) => async () => spec.slice(spec.lastIndexOf('@') + 1);

export const codexCli: ClientRecording = {
  client: 'codex-cli',
  version: pinnedVersion(AGENTS.codex.spec),
  maps: ['client_metadata'],
  scenarios: [
    {
      requests: ['responses, codex exec one turn (streamed, built-in tools)'],
      run: async (url) => runIn(await fetchAgent('codex'), await codexSetup(url, KEY, 'Say hello.')),
    },
    {
      // Its first request is the one-turn request with another prompt: only the result turn is kept.
      requests: [null, 'responses, tool-result turn (exec_command output)'],
      answers: [{ toolCall: { name: 'exec_command', arguments: { cmd: 'cat note.txt' } } }],
      run: async (url) => runIn(await fetchAgent('codex'), await codexSetup(url, KEY, 'What does note.txt say?'), writeNote),
    },
  ],
};

export const claudeCode: ClientRecording = {
  client: 'claude-code',
  version: pinnedVersion(AGENTS.claudeCode.spec),
  scenarios: [
    {
      requests: ['messages, claude -p one turn (streamed, built-in tools)'],
      run: async (url) => runIn(await fetchAgent('claudeCode'), await claudeCodeSetup(url, KEY, 'Say hello.')),
    },
    {
      requests: [null, 'messages, tool_result turn (Read)'],
      run: async (url, script) => {
        const claude = await fetchAgent('claudeCode');
        const setup = await claudeCodeSetup(url, KEY, 'What does note.txt say?');
        script([{ toolCall: { name: 'Read', arguments: { file_path: path.join(setup.cwd, 'note.txt') } } }]);
        return runIn(claude, setup, writeNote);
      },
    },
    {
      // An MCP server's tools are deferred by default: the model loads one with ToolSearch, whose
      // result is a tool_reference block. MCP_CONNECTION_NONBLOCKING=false: the turn waits for the server.
      requests: [null, 'messages, tool_result turn (ToolSearch: a tool_reference to a deferred MCP tool)'],
      answers: [{ toolCall: { name: 'ToolSearch', arguments: { query: `select:${LOOKUP}`, max_results: 1 } } }],
      run: async (url) => {
        const mcpConfig = JSON.stringify({ mcpServers: { notes: { type: 'stdio', command: process.execPath, args: [NOTES_SERVER] } } });
        const setup = await claudeCodeSetup(url, KEY, 'What does the launch note say?', ['--mcp-config', mcpConfig, '--strict-mcp-config']);
        return runIn(await fetchAgent('claudeCode'), setup, undefined, { MCP_CONNECTION_NONBLOCKING: 'false' });
      },
    },
  ],
};

interface AgentsSdk {
  Agent: new (config: { name: string; instructions?: string; tools?: unknown[] }) => unknown;
  run(agent: unknown, input: string): Promise<unknown>;
  tool(config: { name: string; description: string; parameters: unknown; strict: boolean; execute: () => Promise<string> }): unknown;
}

/** The Agents SDK, with what its quickstart sets: OPENAI_BASE_URL and OPENAI_API_KEY, and tracing off (its exporter posts to api.openai.com). */
async function agentsSdkAt(url: string): Promise<AgentsSdk> {
  Object.assign(process.env, { OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: KEY, OPENAI_AGENTS_DISABLE_TRACING: '1' });
  return importLibrary<AgentsSdk>('agentsSdk');
}

export const agentsSdk: ClientRecording = {
  client: 'agents-sdk',
  version: pinnedVersion(LIBRARIES.agentsSdk.spec),
  scenarios: [
    {
      requests: ['responses, one turn (default model and settings)'],
      run: async (url) => {
        const sdk = await agentsSdkAt(url);
        await sdk.run(new sdk.Agent({ name: 'assistant', instructions: 'You are terse.' }), 'Say hello.');
      },
    },
    {
      requests: ['responses, with a function tool', 'responses, tool-result turn'],
      answers: [WEATHER_CALL],
      run: async (url) => {
        const sdk = await agentsSdkAt(url);
        const weather = sdk.tool({ name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.parameters, strict: true, execute: async () => 'sunny, 24 °C' });
        await sdk.run(new sdk.Agent({ name: 'weather', instructions: 'You answer weather questions.', tools: [weather] }), WEATHER_PROMPT);
      },
    },
  ],
};

interface LangchainMessage {
  tool_calls?: { id?: string }[];
}
interface ChatOpenAI {
  invoke(input: unknown): Promise<LangchainMessage>;
  stream(input: unknown): Promise<AsyncIterable<unknown>>;
  bindTools(tools: unknown[]): ChatOpenAI;
}
interface Langchain {
  ChatOpenAI: new (config: { model: string; apiKey: string; configuration: { baseURL: string }; maxRetries: number }) => ChatOpenAI;
}
interface LangchainMessages {
  HumanMessage: new (content: string) => unknown;
  SystemMessage: new (content: string) => unknown;
  ToolMessage: new (config: { content: string; tool_call_id: string }) => unknown;
}

async function chatOpenAI(url: string): Promise<ChatOpenAI> {
  const { ChatOpenAI } = await importLibrary<Langchain>('langchainOpenai');
  return new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: KEY, configuration: { baseURL: `${url}/v1` }, maxRetries: 0 });
}

export const langchain: ClientRecording = {
  client: 'langchain',
  version: pinnedVersion(LIBRARIES.langchainOpenai.spec),
  scenarios: [
    {
      requests: ['chat, ChatOpenAI invoke'],
      run: async (url) => {
        const { HumanMessage, SystemMessage } = await importLibrary<LangchainMessages>('langchainOpenai', '@langchain/core/messages');
        await (await chatOpenAI(url)).invoke([new SystemMessage('You are terse.'), new HumanMessage('Say hello.')]);
      },
    },
    {
      requests: ['chat, ChatOpenAI stream'],
      run: async (url) => {
        for await (const chunk of await (await chatOpenAI(url)).stream('Say hello.')) void chunk;
      },
    },
    {
      requests: ['chat, bindTools', 'chat, bindTools tool-result turn'],
      answers: [WEATHER_CALL],
      run: async (url) => {
        const { HumanMessage, ToolMessage } = await importLibrary<LangchainMessages>('langchainOpenai', '@langchain/core/messages');
        const model = (await chatOpenAI(url)).bindTools([{ type: 'function', function: WEATHER }]);
        const asked = new HumanMessage(WEATHER_PROMPT);
        const answer = await model.invoke([asked]);
        const results = (answer.tool_calls ?? []).map((call) => new ToolMessage({ content: 'sunny, 24 °C', tool_call_id: call.id ?? '' }));
        await model.invoke([asked, answer, ...results]);
      },
    },
  ],
};
