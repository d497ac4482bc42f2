/** The audit row of a tool call: what it carries, and that arguments and results stay out unless asked for. */
import type { TelemetryRecorder, TelemetryRow } from '@pgw/core';
import { describe, expect, it } from 'vitest';
import { McpAudit } from '../src/mcp/audit.js';
import { McpCallTimeoutError } from '../src/mcp/errors.js';
import { ServerMetrics } from '../src/operations/metrics.js';

function recorder(rows: TelemetryRow[]): TelemetryRecorder {
  return { record: (row) => void rows.push(row), flush: async () => {}, stats: () => ({ written: rows.length, dropped: 0, queued: 0 }), close: async () => {} };
}
const call = { server: 'fs', tool: 'read_file', tenantId: 'team-a', priority: 'interactive' as const, requestId: 'req_1', startedAt: performance.now(), attempts: 1, arguments: { path: '/etc/secret' }, result: { content: [] } };

describe('McpAudit', () => {
  it('writes one mcp row per call with server, tool, tenant, outcome and request id, without arguments or result', () => {
    const rows: TelemetryRow[] = [];
    new McpAudit(recorder(rows), new ServerMetrics(20), false).toolCall({ ...call, outcome: 'ok' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ scope: 'PGW_MCP', operation: 'mcp', source: 'fs', model: 'read_file', tenantId: 'team-a', status: 'ok', attempts: 1, meta: { server: 'fs', tool: 'read_file', outcome: 'ok', requestId: 'req_1' } });
    expect(rows[0]!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(rows[0])).not.toContain('/etc/secret');
  });

  it('names a failure by its class, and keeps arguments and result under PGW_MCP__LOG_ARGUMENTS=on', async () => {
    const rows: TelemetryRow[] = [];
    const metrics = new ServerMetrics(20);
    const audit = new McpAudit(recorder(rows), metrics, true);
    audit.toolCall({ ...call, outcome: 'failed', error: new McpCallTimeoutError('fs', 1000) });
    audit.toolCall({ ...call, outcome: 'ok' });
    expect(rows[0]).toMatchObject({ status: 'error', eventKind: 'terminal_failure', errorType: 'McpCallTimeoutError' });
    expect(rows[1]).toMatchObject({ requestText: JSON.stringify(call.arguments), responseText: JSON.stringify(call.result) });
    expect(await metrics.text()).toMatch(/pgw_mcp_tool_calls_total\{server="fs",tool="read_file",outcome="failed"\} 1/);
  });
});
