/** The console's MCP panel: each upstream server's health, breaker, calls in flight and waiting, and its last error. */
import type { ConsolePanel, ConsoleTable } from '../console/state.js';
import type { McpServerStatus } from './gateway.js';

const COLUMNS = ['Server', 'Transport', 'Health', 'Breaker', 'In flight', 'Waiting here', 'Last error'];

/** `status`: undefined until the first `/mcp` request opened the gateway (every server is then idle). */
export function mcpPanel(status: () => Promise<McpServerStatus[] | undefined>, names: readonly string[]): ConsolePanel {
  return {
    id: 'mcp',
    title: 'MCP servers',
    async read(): Promise<ConsoleTable> {
      const servers = await status();
      const rows = servers?.map((s) => [s.server, s.transport, s.health, s.breaker, s.inflight, s.waitingHere, s.recentErrors.at(-1) ?? '']) ?? names.map((name) => [name, '', 'idle', 'closed', 0, 0, '']);
      return { columns: COLUMNS, rows };
    },
  };
}
