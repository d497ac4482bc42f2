/** The agents this suite runs, pinned exactly (name@version, as `scripts/fetch-npm-tool.sh` takes them). */
export const AGENTS = {
  /** Codex CLI: a Node launcher whose native binary comes in the optional dependency `@openai/codex-linux-x64`. */
  codex: { spec: '@openai/codex@0.171.0', bin: 'codex' },
  /** Claude Code: a native binary, put in place as `bin/claude.exe` by its postinstall. */
  claudeCode: { spec: '@anthropic-ai/claude-code@2.1.332', bin: 'claude' },
} as const;

export type AgentName = keyof typeof AGENTS;

/** Client libraries this suite drives in process, pinned exactly; fetched as the agents are, never workspace dependencies. */
export const LIBRARIES = {
  /** The OpenAI Agents SDK: `run(agent, …)` on the Responses route, with `OPENAI_BASE_URL` only. */
  agentsSdk: { spec: '@openai/agents@0.20.0', module: '@openai/agents' },
} as const;

export type LibraryName = keyof typeof LIBRARIES;
