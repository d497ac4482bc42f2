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
  /**
   * LangChain's OpenAI chat model (`ChatOpenAI`), for the recorder of the wire fixtures: 1.5.8 is its
   * last release whose `engines` takes Node 20 (1.5.9 on ask for Node 22); its peer `@langchain/core`
   * is the newest 1.x npm resolves at fetch time.
   */
  langchainOpenai: { spec: '@langchain/openai@1.5.8', module: '@langchain/openai' },
} as const;

export type LibraryName = keyof typeof LIBRARIES;
