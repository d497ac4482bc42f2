import { mergeConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.ts';

// Every Responses answer and event the tests receive is checked against the vendored OpenAI spec (test/conformance).
export default mergeConfig(packageTestConfig(), {
  test: { globalSetup: ['test/conformance/global-setup.ts'], setupFiles: ['test/conformance/setup.ts'] },
});
