/** The loopback mock upstream, and the env keys of a scope whose sources point at it. */
import { randomBytes } from 'node:crypto';
import { startMockUpstream, type MockUpstream, type SourceScript } from '@pgw/mock-upstream';

export const startMock = (): Promise<MockUpstream> =>
  startMockUpstream({ port: 0, host: '127.0.0.1', script: { sources: {} }, seed: 18 });

/** A scope name (and source name) no other run uses, on a shared Redis or table. */
export const uniqueName = (label: string): string => `${label}_${randomBytes(4).toString('hex')}`.toUpperCase();

/** Registers a fresh chat source on the mock; returns its env keys (`{scope}__SOURCE__…`, plus `{scope}__…` for `scopeKeys`). */
export function chatScope(
  mock: MockUpstream,
  scope: string,
  script: SourceScript,
  sourceKeys: Record<string, string> = {},
  scopeKeys: Record<string, string> = {},
): { source: string; env: Record<string, string> } {
  const source = uniqueName('src').toLowerCase();
  mock.setSource(source, script);
  const env: Record<string, string> = {
    [`${scope}__SOURCE__${source.toUpperCase()}__BASE_URL`]: mock.baseUrl(source),
    [`${scope}__SOURCE__${source.toUpperCase()}__MODEL`]: 'mock-model',
  };
  for (const [key, value] of Object.entries(sourceKeys)) env[`${scope}__SOURCE__${source.toUpperCase()}__${key}`] = value;
  for (const [key, value] of Object.entries(scopeKeys)) env[`${scope}__${key}`] = value;
  return { source, env };
}
