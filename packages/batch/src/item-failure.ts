/**
 * A failed item's record in OpenAI's batch shape: an HTTP status and an OpenAI error body, decided
 * by the error's class (never its message text). Errors of no known class say nothing of their
 * internals.
 */
import {
  CallDeadlineExceeded,
  GatewayUnavailableError,
  PolyGatewayError,
  RequestRejectedError,
  ResultInvalidError,
} from '@pgw/client';
import { SourceDeadError, TransientError } from '@pgw/core';
import type { ItemResponse } from '@pgw/core';

type Classified = readonly [status: number, type: string];

function classify(error: unknown): Classified | undefined {
  if (error instanceof TypeError || error instanceof RangeError || error instanceof RequestRejectedError) return [400, 'invalid_request_error'];
  if (error instanceof CallDeadlineExceeded) return [504, 'timeout'];
  if (error instanceof GatewayUnavailableError) return [503, 'service_unavailable'];
  if (error instanceof ResultInvalidError || error instanceof SourceDeadError || error instanceof TransientError) return [502, 'upstream_error'];
  if (error instanceof PolyGatewayError) return [500, 'server_error'];
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return [400, 'invalid_request_error'];
  return undefined;
}

export function failedResponse(error: unknown, requestId: string): ItemResponse {
  const known = classify(error);
  const [statusCode, type] = known ?? [500, 'server_error'];
  const message = known && error instanceof Error ? error.message : 'the item failed inside the gateway';
  const code = error instanceof PolyGatewayError ? error.name : null;
  return { statusCode, requestId, body: { error: { message, type, code } } };
}
