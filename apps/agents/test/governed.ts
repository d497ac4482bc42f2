/**
 * The governed route the agents talk to: `GatewayServer` (as `pgw serve` runs it) on loopback port 0,
 * with a door key, over the mock upstream (one source `main` that answers with a scripted text). It
 * records what proves the call was governed: the access log's lines (route, status, tenant, call
 * id), the clients' finished calls, and the upstream's requests (which must carry the upstream's key,
 * never the door's).
 */
import type { GatewaySubscriber } from '@pgw/client';
import { startMockUpstream, type SourceScript, type MockUpstream, type RecordedRequest } from '@pgw/mock-upstream';
import { GatewayServer } from '@pgw/server';

export const DOOR_KEY = 'sk-pgw-agents-door-0001';
export const TENANT = 'agents';
export const UPSTREAM_KEY = 'sk-mock-upstream-0001';

export interface AccessLine {
  method: string;
  route: string | null;
  status: number;
  tenant: string | null;
  callId: string | null;
}

export type CallEnd = Parameters<NonNullable<GatewaySubscriber['onCallEnd']>>[0];

export interface Governed {
  /** The server's root, `http://127.0.0.1:PORT` (Anthropic's clients add `/v1`, OpenAI's are given it). */
  url: string;
  server: GatewayServer;
  mock: MockUpstream;
  access: AccessLine[];
  calls: CallEnd[];
  /** The upstream's chat requests so far. */
  chats(): RecordedRequest[];
  /** The access-log line of the first request on `route` (polls a moment: it is written when the socket closes). */
  accessLine(route: string, timeoutMs?: number): Promise<AccessLine | undefined>;
  close(): Promise<void>;
}

/** The server over the mock; `env` adds to (or overrides) its settings, e.g. MCP servers and a key's grants. */
export async function startGoverned(source: SourceScript, env: Record<string, string> = {}): Promise<Governed> {
  const mock = await startMockUpstream({ port: 0, script: { sources: { main: source } } });
  const access: AccessLine[] = [];
  const calls: CallEnd[] = [];
  const server = new GatewayServer({
    env: {
      LLM__SOURCE__MAIN__BASE_URL: mock.baseUrl('main'),
      LLM__SOURCE__MAIN__MODEL: 'gpt-4o-mini',
      LLM__SOURCE__MAIN__API_KEY: UPSTREAM_KEY,
      PGW_CACHE_BACKEND: 'none',
      PGW_SERVER__KEYS: JSON.stringify({ [DOOR_KEY]: TENANT }),
      ...env,
    },
    subscribers: [{ name: 'agents-test', onCallEnd: (event) => void calls.push(event) }],
    warn: () => {},
    log: (line) => {
      const entry = JSON.parse(line) as Partial<AccessLine> & { level?: string };
      if (entry.level === undefined) access.push(entry as AccessLine);
    },
  });
  let url: string;
  try {
    url = await server.listen({ host: '127.0.0.1', port: 0 });
  } catch (error) {
    await mock.close();
    throw error;
  }
  return {
    url,
    server,
    mock,
    access,
    calls,
    chats: () => mock.requests('main').filter((request) => request.route === 'chat'),
    async accessLine(route, timeoutMs = 2_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const line = access.find((entry) => entry.route === route);
        if (line !== undefined || Date.now() > until) return line;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      await server.drain(0);
      await mock.close();
    },
  };
}
