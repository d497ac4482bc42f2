import { inBandErrorObject, translateInBandError } from '@pgw/http';
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

/**
 * A 2xx JSON body whose content lives under `contentKey` (`choices`, `data`). A body that carries
 * an `error` instead is an in-band error, classified like the HTTP error it stands for.
 */
export function parseAnswerBody(body: string, origin: AnswerOrigin, contentKey: string): Record<string, unknown> {
  const json = parseJsonObject(body, origin);
  if (json[contentKey] === undefined && inBandErrorObject(json) !== undefined) throw inBandError(body, origin);
  return json;
}

export function inBandError(data: string, origin: AnswerOrigin): Error {
  return translateInBandError(data, { ...origin.failure, status: origin.status, headers: origin.headers });
}
