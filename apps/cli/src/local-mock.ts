/**
 * `--mock`: a command runs against the local mock upstream, started in this process for the
 * command's duration — the one step from `pnpm demo` to trying the CLI. The scopes' own keys are
 * set aside and one source, `mock`, takes their place in each; keys outside them (backends, the
 * server's) stay.
 */
import { effectiveEnv } from './effective-env.js';

export const MOCK_SOURCE = 'mock';

/** Printed under a configuration error of a command that takes `--mock`. */
export const MOCK_HINT = 'no upstream at hand? add --mock to run this command against a local mock upstream (keys: .env.example)';

/** Where a command reads its keys: an env file beneath the process env, or (`--mock`) a whole env. */
export type EnvSource = { envFile?: string; env?: undefined } | { env: Record<string, string>; envFile?: undefined };

export interface MockableFlags {
  scope: string;
  envFile?: string;
  mock?: boolean;
}

/** A command of one scope: `flags.scope` served by `model`. */
export function withEnvSource<T>(flags: MockableFlags, model: string, run: (source: EnvSource) => Promise<T>): Promise<T> {
  return withMockedScopes(flags, () => new Map([[flags.scope, model]]), run);
}

/** Under `--mock`, each scope `models` names (scope → model) is served by the mock upstream. */
export async function withMockedScopes<T>(
  flags: { envFile?: string; mock?: boolean },
  models: (env: ReadonlyMap<string, string>) => ReadonlyMap<string, string>,
  run: (source: EnvSource) => Promise<T>,
): Promise<T> {
  if (!flags.mock) return run(flags.envFile === undefined ? {} : { envFile: flags.envFile });
  const given = effectiveEnv(flags.envFile);
  const scopes = [...models(given)].map(([scope, model]) => ({ prefix: `${scope.toUpperCase()}__`, model }));
  const { startMockUpstream } = await import('@pgw/mock-upstream');
  const mock = await startMockUpstream({ port: 0, script: { sources: { [MOCK_SOURCE]: {} } } });
  try {
    const env: Record<string, string> = Object.fromEntries([...given].filter(([key]) => !scopes.some(({ prefix }) => key.startsWith(prefix))));
    for (const { prefix, model } of scopes) {
      const source = `${prefix}SOURCE__${MOCK_SOURCE.toUpperCase()}__`;
      env[`${source}BASE_URL`] = mock.baseUrl(MOCK_SOURCE);
      env[`${source}MODEL`] = model;
    }
    return await run({ env });
  } finally {
    await mock.close();
  }
}
