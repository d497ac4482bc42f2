/** A failed call as every protocol tells it: the HTTP status and OpenAI's error fields, which each protocol's shape is made of. */
export interface WireFailure {
  status: number;
  /** OpenAI's `error.type` (`invalid_request_error`, `rate_limit_exceeded`, …). */
  type: string;
  code: string | null;
  param: string | null;
  message: string;
}

/** The body of an error answer in OpenAI's shape, and of the SSE event that ends a Chat Completions stream that failed. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export function errorBody({ message, type, param, code }: WireFailure): OpenAIErrorBody {
  return { error: { message, type, param, code } };
}
