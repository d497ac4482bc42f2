/**
 * How each agent is pointed at the governed route, in a fresh temporary home that the run owns and
 * removes: the environment and arguments of a one-shot prompt, nothing else of the test process's
 * environment (no proxy, no key, no home of the developer).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface AgentSetup {
  args: string[];
  env: Record<string, string>;
  /** The working directory of the run (empty; inside the run's home). */
  cwd: string;
  /** Removes the run's home. */
  dispose(): Promise<void>;
}

/** The environment every agent gets: PATH with this Node first (Codex's launcher is a Node script), a home, a UTF-8 locale. */
function baseEnv(home: string): Record<string, string> {
  return { PATH: [path.dirname(process.execPath), process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin'].join(path.delimiter), HOME: home, LANG: 'C.UTF-8', TERM: 'dumb', NO_COLOR: '1' };
}

async function tempHome(agent: string): Promise<{ home: string; cwd: string; dispose: () => Promise<void> }> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), `pgw-agents-${agent}-`));
  const cwd = path.join(home, 'work');
  await fs.mkdir(cwd);
  return { home, cwd, dispose: () => fs.rm(home, { recursive: true, force: true }) };
}

/** The env variable that carries the door key to Codex (its provider's `env_key`). */
export const CODEX_KEY_ENV = 'PGW_API_KEY';

/**
 * Codex CLI's `config.toml`: its defaults and the provider block alone, a custom provider on the
 * server's Responses route with the key from `env_key`. Codex then offers a hosted `web_search`
 * tool, which the server drops and names, and a multi-agent `namespace` tool, which it flattens.
 */
export function codexConfig(serverUrl: string, model = 'gpt-4o-mini'): string {
  return [
    `model = "${model}"`,
    'model_provider = "pgw"',
    '',
    '[model_providers.pgw]',
    'name = "pgw"',
    `base_url = "${serverUrl}/v1"`,
    `env_key = "${CODEX_KEY_ENV}"`,
    'wire_api = "responses"',
    '',
  ].join('\n');
}

/** `codex exec` of one prompt: CODEX_HOME a temporary folder with `codexConfig`; `lastMessage` the file of its final answer. */
export async function codexSetup(serverUrl: string, key: string, prompt: string): Promise<AgentSetup & { lastMessage: string }> {
  const { home, cwd, dispose } = await tempHome('codex');
  const codexHome = path.join(home, 'codex-home');
  await fs.mkdir(codexHome);
  await fs.writeFile(path.join(codexHome, 'config.toml'), codexConfig(serverUrl));
  const lastMessage = path.join(home, 'last-message.txt');
  return {
    args: ['exec', '--strict-config', '--ephemeral', '--skip-git-repo-check', '--color', 'never', '--cd', cwd, '--output-last-message', lastMessage, prompt],
    env: { ...baseEnv(home), CODEX_HOME: codexHome, [CODEX_KEY_ENV]: key },
    cwd,
    lastMessage,
    dispose,
  };
}

/** Claude Code's switches for a machine without internet: no telemetry, error reports, update checks or other non-essential calls. */
export const CLAUDE_CODE_QUIET_ENV = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_BUG_COMMAND: '1',
} as const;

/** `claude -p` of one prompt: ANTHROPIC_BASE_URL the server's root, the door key as ANTHROPIC_API_KEY, a temporary HOME. */
export async function claudeCodeSetup(serverUrl: string, key: string, prompt: string, extraArgs: readonly string[] = []): Promise<AgentSetup> {
  const { home, cwd, dispose } = await tempHome('claude');
  return {
    args: ['-p', prompt, ...extraArgs],
    env: { ...baseEnv(home), ...CLAUDE_CODE_QUIET_ENV, ANTHROPIC_BASE_URL: serverUrl, ANTHROPIC_API_KEY: key },
    cwd,
    dispose,
  };
}
