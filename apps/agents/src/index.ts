// Real coding agents against pgw serve (see README.md): their pins, the on-demand fetch, where the
// suite runs, their setups and one bounded run. The governed route they talk to is test/governed.ts.
export { AGENTS, LIBRARIES, type AgentName, type LibraryName } from './pins.js';
export { fetchAgent, importLibrary } from './fetch-tool.js';
export { agentsNodeMajor, whyNotHere } from './run-here.js';
export { runAgent, describeRun, type AgentRun, type RunOptions } from './run-agent.js';
export { codexConfig, codexSetup, claudeCodeSetup, CODEX_KEY_ENV, CLAUDE_CODE_QUIET_ENV, type AgentSetup } from './agents.js';
