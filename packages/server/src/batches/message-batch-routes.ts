/**
 * `/v1/messages/batches` in Anthropic's shapes, over `ServerBatches` (message-batches.ts), its errors
 * in Anthropic's shape as the Messages route answers them. Every field is hostile input: the body by
 * a zod schema within Anthropic's bounds, ids matched against their pattern before any lookup, list
 * pages bounded.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseRequest } from '@pgw/wire';
import { z } from 'zod';
import { ObjectNotFoundError } from '../door/request-error.js';
import { ANTHROPIC, callerOf, tenantOf } from '../routes/governed.js';
import type { ServerBatches } from './batches.js';
import { createMessageBatch, CUSTOM_ID, MAX_BATCH_BYTES, MAX_REQUESTS, MESSAGE_BATCH_ID, messageBatchObject, messageBatchResults } from './message-batches.js';

const MAX_LIST_LIMIT = 1000;
const DEFAULT_LIST_LIMIT = 20;

const createBody = z.object({
  requests: z
    .array(z.object({ custom_id: z.string().regex(CUSTOM_ID, `must match ${CUSTOM_ID.source}`), params: z.record(z.string(), z.unknown()) }))
    .min(1)
    .max(MAX_REQUESTS),
});

const batchIdField = z.string().regex(MESSAGE_BATCH_ID, 'must be a message batch id (msgbatch_…)').optional();
const listQuery = z
  .object({ after_id: batchIdField, before_id: batchIdField, limit: z.coerce.number().int().min(1).max(MAX_LIST_LIMIT).default(DEFAULT_LIST_LIMIT) })
  .refine((query) => query.after_id === undefined || query.before_id === undefined, { message: 'must not be sent with after_id', path: ['before_id'] });

type ById = { Params: { id: string } };

export function registerMessageBatchRoutes(app: FastifyInstance, batches: ServerBatches): void {
  const batchId = (id: string) => {
    if (!MESSAGE_BATCH_ID.test(id)) throw new ObjectNotFoundError('Batch', id.slice(0, 64));
    return id;
  };
  // Absolute, as Anthropic's: the SDK reads the results from this address as given.
  const resultsUrl = (request: FastifyRequest, id: string) => `${request.protocol}://${request.host}/v1/messages/batches/${id}/results`;
  const answer = (request: FastifyRequest, job: Parameters<typeof messageBatchObject>[0]) => messageBatchObject(job, resultsUrl(request, job.job));

  app.post('/v1/messages/batches', { ...ANTHROPIC, bodyLimit: MAX_BATCH_BYTES }, async (request) => {
    const { requests } = parseRequest(createBody, request.body);
    return answer(request, await createMessageBatch(batches, callerOf(request), requests));
  });
  app.get('/v1/messages/batches', ANTHROPIC, async (request) => {
    const query = parseRequest(listQuery, request.query);
    const page = await batches.list(tenantOf(request), 'message_batch', { after: query.after_id, before: query.before_id, limit: query.limit });
    const data = page.jobs.map((job) => answer(request, job));
    return { data, has_more: page.hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
  });
  app.get<ById>('/v1/messages/batches/:id', ANTHROPIC, async (request) => answer(request, await batches.retrieve(tenantOf(request), batchId(request.params.id), 'message_batch')));
  app.post<ById>('/v1/messages/batches/:id/cancel', ANTHROPIC, async (request) => answer(request, await batches.cancel(tenantOf(request), batchId(request.params.id), 'message_batch')));
  app.delete<ById>('/v1/messages/batches/:id', ANTHROPIC, async (request) => {
    const id = batchId(request.params.id);
    await batches.delete(tenantOf(request), id);
    return { id, type: 'message_batch_deleted' };
  });
  app.get<ById>('/v1/messages/batches/:id/results', ANTHROPIC, async (request, reply) =>
    reply.type('application/x-jsonl').send(await messageBatchResults(batches, tenantOf(request), batchId(request.params.id))),
  );
}
