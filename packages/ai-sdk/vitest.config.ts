import { packageTestConfig } from '../../vitest.shared.ts';

// The files start child servers (mock-llm) and loopback servers; one at a time, so a busy 2-core
// machine does not push a child's start past the hook timeout.
export default packageTestConfig({ testTimeout: 30_000, fileParallelism: false });
