import { fileURLToPath } from 'node:url';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * Every package's vitest config: workspace packages resolve to their TypeScript source, in tests and
 * global setups alike; the global setup builds the SQLite writer thread's entry when it is stale (see
 * vitest.writer-thread-setup.ts).
 */
export function packageTestConfig(overrides: { testTimeout?: number; fileParallelism?: boolean; exclude?: string[] } = {}) {
  return defineConfig({
    ssr: { resolve: { conditions: ['@pgw/source', ...defaultServerConditions] } },
    // Global setups run in vitest's own environment, which does not take `ssr`'s conditions: without the
    // source condition there, a workspace import would resolve to a `dist/` that tests never build.
    environments: { __vitest__: { resolve: { conditions: ['@pgw/source', ...defaultServerConditions] } } },
    test: {
      include: ['test/**/*.test.ts'],
      ...(overrides.exclude && { exclude: overrides.exclude }),
      globalSetup: [fileURLToPath(new URL('./vitest.writer-thread-setup.ts', import.meta.url))],
      testTimeout: overrides.testTimeout ?? 20_000,
      hookTimeout: 30_000,
      fileParallelism: overrides.fileParallelism ?? true,
    },
  });
}
