import { packageTestConfig } from '../../vitest.shared.ts';

// The tests start third-party servers (mock-llm, the Anthropic wire server): generous bounds under load.
export default packageTestConfig({ testTimeout: 30_000 });
