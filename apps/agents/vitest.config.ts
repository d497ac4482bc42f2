import { mergeConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.ts';
import { whyNotHere } from './src/run-here.ts';

// The agents' and the Agents SDK's suites are not collected on the other Nodes (so none is reported skipped there); runAgent's own tests run everywhere.
const notHere = whyNotHere();
if (notHere !== undefined) console.log(`@pgw/agents: the Codex CLI, Claude Code and Agents SDK suites do not run here: ${notHere}`);

// The wire fixtures' bodies are checked against the vendored OpenAI spec (test/openapi).
export default mergeConfig(packageTestConfig({ exclude: notHere === undefined ? [] : ['test/codex.test.ts', 'test/claude-code.test.ts', 'test/agents-sdk.test.ts'] }), {
  test: { globalSetup: ['test/openapi/global-setup.ts'] },
});
