import { mergeConfig } from 'vitest/config';
import { packageTestConfig } from '../../vitest.shared.ts';

// Every shaped answer and stream event is checked against the vendored OpenAI spec (test/global-setup.ts).
export default mergeConfig(packageTestConfig(), {
  test: { globalSetup: ['test/global-setup.ts'] },
});
