import { invalidAnswer, type AnswerOrigin } from './error-translation.js';
import { isRecord } from './json.js';

/** A 2xx body or stream chunk that must be a JSON object. */
export function parseJsonObject(body: string, origin: AnswerOrigin): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw invalidAnswer(origin, 'body is not JSON', body);
  }
  if (!isRecord(json)) throw invalidAnswer(origin, 'body is not a JSON object', body);
  return json;
}
