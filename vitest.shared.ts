import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/** Every package's vitest config: workspace packages resolve to their TypeScript source. */
export function packageTestConfig(overrides: { testTimeout?: number; fileParallelism?: boolean } = {}) {
  return defineConfig({
    ssr: { resolve: { conditions: ['@pgw/source', ...defaultServerConditions] } },
    test: {
      include: ['test/**/*.test.ts'],
      testTimeout: overrides.testTimeout ?? 20_000,
      hookTimeout: 30_000,
      fileParallelism: overrides.fileParallelism ?? true,
    },
  });
}
