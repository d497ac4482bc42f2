/** Attribute and metric names: the OpenTelemetry GenAI semantic conventions, and ours under `pgw.*`. */
import type { Operation } from '@pgw/core';

export const ATTR = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  tokenType: 'gen_ai.token.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  errorType: 'error.type',
  httpStatusCode: 'http.response.status_code',
  source: 'pgw.source',
  scope: 'pgw.scope',
  attempt: 'pgw.attempt',
  attempts: 'pgw.attempts',
  outcome: 'pgw.outcome',
  cached: 'pgw.cached',
  breakerState: 'pgw.breaker.state',
  queueWaitMs: 'pgw.queue_wait_ms',
  costUsd: 'pgw.cost_usd',
  logicalCallId: 'pgw.logical_call_id',
  tenantId: 'pgw.tenant_id',
  priority: 'pgw.priority',
  ttftMs: 'pgw.ttft_ms',
  requestText: 'pgw.request.text',
  responseText: 'pgw.response.text',
} as const;

export const METRIC = {
  operationDuration: 'gen_ai.client.operation.duration',
  tokenUsage: 'gen_ai.client.token.usage',
  attempts: 'pgw.attempts',
  retries: 'pgw.retries',
  inflight: 'pgw.attempts.inflight',
  breakerState: 'pgw.breaker.state',
  budgetRefusals: 'pgw.budget.refusals',
} as const;

/** `gen_ai.operation.name`: the conventions' names where one fits (an MCP tool call is `execute_tool`), ours for OCR. */
export const OPERATION_NAME: Readonly<Record<Operation, string>> = {
  chat: 'chat',
  embed: 'embeddings',
  ocr_text: 'ocr_text',
  ocr_layout: 'ocr_layout',
  mcp: 'execute_tool',
};

/** The breaker gauge's values. */
export const BREAKER_STATE_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

/** `error.type`: the error's class name (low cardinality, never its message), or `_OTHER`. */
export function errorType(error: unknown): string {
  return error instanceof Error && error.name !== '' ? error.name : '_OTHER';
}

/** Bucket boundaries the GenAI conventions advise. */
export const DURATION_BUCKETS_S = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
export const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
