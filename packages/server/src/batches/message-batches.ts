/**
 * Anthropic's Message Batches over `ServerBatches`: a batch's requests checked as the Messages route
 * checks a body (the field named inside `requests[i].params`), its job as a `message_batch`, and its
 * results as Anthropic's JSONL — one `{custom_id, result}` per request, a request the batch never ran
 * `canceled`. The job and its runner are the OpenAI batches' own: only the shapes differ.
 */
import { lineCall, MESSAGES_URL } from '@pgw/batch';
import { isSuccess, type BatchItem, type ItemResult, type JobProgress } from '@pgw/core';
import { anthropicFailure, InvalidRequestFieldError, type OpenAIErrorBody } from '@pgw/wire';
import { mayCall, type RequestCaller } from '../door/caller.js';
import { BatchNotEndedError } from '../door/request-error.js';
import { hasEnded, newId, type ServerBatches } from './batches.js';

export const MESSAGE_BATCH_ID = /^msgbatch_[0-9a-f]{24}$/;
/** Anthropic's bounds on a batch: its `custom_id`s, its request count, its body. */
export const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;
export const MAX_REQUESTS = 100_000;
export const MAX_BATCH_BYTES = 256 * 1024 * 1024;
/** Anthropic's processing window, reported as `expires_at` (docs/decisions.md: the engine does not expire a batch). */
const WINDOW_S = 24 * 60 * 60;

export interface MessageBatchRequest {
  custom_id: string;
  params: Record<string, unknown>;
}

/**
 * Checks every request (a unique `custom_id`, its `params` a Messages body that can run in a batch, a
 * model the key may call), then starts the batch. A model no scope serves is let in: that request
 * alone ends `errored`, as Anthropic's do.
 */
export async function createMessageBatch(batches: ServerBatches, caller: RequestCaller, requests: readonly MessageBatchRequest[]): Promise<JobProgress> {
  const tenantId = caller.tenantId ?? '';
  const seen = new Set<string>();
  const models = new Map<string, string>();
  const items = requests.map(({ custom_id: customId, params }, index): BatchItem => {
    const at = `requests[${index}]`;
    if (seen.has(customId)) throw new InvalidRequestFieldError(`${at}.custom_id`, `"${customId}" is the custom_id of an earlier request`);
    seen.add(customId);
    try {
      lineCall(MESSAGES_URL, params);
    } catch (error) {
      throw error instanceof InvalidRequestFieldError ? error.within(`${at}.params`) : error;
    }
    const model = String(params['model']);
    if (!mayCall(caller, model)) throw new InvalidRequestFieldError(`${at}.params.model`, `"${model}" is not a model this key may call`);
    const scope = batches.scopeOf('chat', model);
    if (scope !== undefined) models.set(model, scope);
    return { customId, url: MESSAGES_URL, body: params, line: index + 1 };
  });
  const id = newId('msgbatch_');
  // The engine keeps finished items only: the request list says which ones a canceled batch never ran.
  const list = await batches.createFile(tenantId, `${id}_requests.txt`, 'message_batch_requests', Buffer.from(requests.map((request) => request.custom_id).join('\n')));
  return batches.begin({ id, tenantId, endpoint: MESSAGES_URL, models, meta: { requests_file_id: list.id } }, items);
}

const isoTime = (seconds: string | number | undefined): string | null => (seconds === undefined ? null : new Date(Number(seconds) * 1000).toISOString());

/** The batch as Anthropic's `message_batch`; `resultsUrl` is where its results are read once it ended. */
export function messageBatchObject(job: JobProgress, resultsUrl: string) {
  const ended = hasEnded(job);
  const unrun = job.total - job.done - job.failed;
  const createdAt = Number(job.meta['created_at']);
  return {
    id: job.job,
    type: 'message_batch',
    processing_status: ended ? 'ended' : job.status === 'cancelled' ? 'canceling' : 'in_progress',
    request_counts: { processing: ended ? 0 : unrun, succeeded: job.done, errored: job.failed, canceled: ended ? unrun : 0, expired: 0 },
    ended_at: isoTime(job.meta['finalized_at']),
    created_at: isoTime(createdAt),
    expires_at: isoTime(createdAt + WINDOW_S),
    cancel_initiated_at: isoTime(job.meta['cancelling_at']),
    archived_at: null,
    results_url: ended ? resultsUrl : null,
  };
}

/** One request's result: its message, its failure in Anthropic's error shape, or `canceled` when it never ran. */
function resultOf(result: ItemResult | undefined): Record<string, unknown> {
  if (result === undefined) return { type: 'canceled' };
  if (isSuccess(result.statusCode)) return { type: 'succeeded', message: result.body };
  const { error } = result.body as OpenAIErrorBody;
  return { type: 'errored', error: anthropicFailure({ status: result.statusCode, type: error.type, code: error.code, param: null, message: error.message }).body };
}

/** An ended batch's results as JSONL, one line per request in the order they were sent. */
export async function messageBatchResults(batches: ServerBatches, tenantId: string, id: string): Promise<string> {
  const job = await batches.retrieve(tenantId, id, 'message_batch');
  if (!hasEnded(job)) throw new BatchNotEndedError(id);
  const customIds = Buffer.from(await batches.fileContent(tenantId, job.meta['requests_file_id']!)).toString('utf8').split('\n');
  const results = new Map((await batches.results(id)).map((result) => [result.customId, result]));
  return `${customIds.map((customId) => JSON.stringify({ custom_id: customId, result: resultOf(results.get(customId)) })).join('\n')}\n`;
}
