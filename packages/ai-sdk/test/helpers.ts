// The AI SDK logs each warning to the console; the tests assert on the warnings themselves.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

import { MemoryRecorder } from '@pgw/core';
import { EmbeddingClient, GatewayClient, embeddingSettings, gatewaySettings } from '@pgw/client';
import type { GatewayClientOverrides, GatewaySettingsInput } from '@pgw/client';
import { startMockUpstream, type MockUpstream, type SourceScript } from '@pgw/mock-upstream';
import { afterAll, beforeAll, beforeEach } from 'vitest';

let scopes = 0;
/** A scope name no other test of this run uses (the memory backends are per client anyway). */
export const uniqueScope = (stem: string): string => `${stem.toUpperCase()}_${process.pid}_${++scopes}`;

/** The loopback mock of the project, started once per test file. */
export function useMock(): { readonly mock: MockUpstream } {
  let mock: MockUpstream | undefined;
  beforeAll(async () => {
    mock = await startMockUpstream({ script: { sources: {} } });
  });
  beforeEach(() => mock?.reset());
  afterAll(async () => {
    await mock?.close();
  });
  return {
    get mock() {
      if (mock === undefined) throw new Error('the mock is not started');
      return mock;
    },
  };
}

type SourceInput = GatewaySettingsInput['sources'][number];

/** A governed client over mock sources (in this order, `ordered`), fast backoff, memory backends, a recorder to read. */
export async function mockClient(
  mock: MockUpstream,
  scripts: Record<string, SourceScript>,
  extra: Partial<GatewaySettingsInput> & { sources?: SourceInput[] } = {},
  overrides: GatewayClientOverrides = {},
): Promise<{ client: GatewayClient; recorder: MemoryRecorder }> {
  for (const [name, script] of Object.entries(scripts)) mock.setSource(name, script);
  const recorder = new MemoryRecorder();
  const sources: SourceInput[] = extra.sources ?? Object.keys(scripts).map((name) => ({ name, baseUrl: mock.baseUrl(name), model: `${name}-model` }));
  const settings = gatewaySettings({
    scope: uniqueScope('aisdk'),
    selector: 'ordered',
    retry: { maxAttempts: 3, backoffBaseMs: 10, backoffMaxMs: 50 },
    backends: { cache: 'none' },
    ...extra,
    sources,
  } as GatewaySettingsInput);
  const client = await GatewayClient.fromSettings(settings, { warn: () => {}, recorder, ...overrides });
  return { client, recorder };
}

export async function mockEmbeddingClient(mock: MockUpstream, name: string): Promise<EmbeddingClient> {
  mock.setSource(name, {});
  const settings = embeddingSettings({ scope: uniqueScope('aisdk_embed'), sources: [{ name, baseUrl: mock.baseUrl(name), model: `${name}-embed` }] });
  return EmbeddingClient.fromSettings(settings, { warn: () => {} });
}
