/** The HTTP routes: OpenAI's chat completions (JSON and SSE), embeddings and models, and the operator's health, readiness and metrics. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LLMResponse } from '@pgw/client';
import type { ApiKeys } from './api-keys.js';
import { chatCall } from './chat-request.js';
import { chatCompletion } from './chat-response.js';
import { abortOnDisconnect } from './disconnect.js';
import { embedCall, embeddingList } from './embeddings.js';
import type { ServerMetrics } from './metrics.js';
import { UnauthorizedError } from './request-error.js';
import type { ScopeClients } from './scope-clients.js';
import { streamChat } from './sse.js';

export interface RouteParts {
  clients: ScopeClients;
  keys: ApiKeys;
  metrics: ServerMetrics;
  /** Controllers of the calls in flight, aborted when the drain grace runs out. */
  inflight: Set<AbortController>;
  draining: () => boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    tenantId?: string;
  }
}

export function registerRoutes(app: FastifyInstance, parts: RouteParts): void {
  const { clients, keys, metrics } = parts;

  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/v1/') || keys.size === 0) return;
    const tenantId = keys.tenantOf(request.headers.authorization);
    if (tenantId === undefined) throw new UnauthorizedError();
    request.tenantId = tenantId;
  });

  app.post('/v1/chat/completions', (request, reply) =>
    governed(parts, reply, async (signal) => {
      const call = chatCall(request.body);
      const client = await clients.client('chat', clients.scopeOf('chat', call.model));
      const options = { ...call.options, signal, ...tenant(request) };
      if (call.stream) return streamChat(client, { ...call, options }, reply);
      return sendCompletion(reply, await client.chat(call.messages, options));
    }),
  );

  app.post('/v1/embeddings', (request, reply) =>
    governed(parts, reply, async (signal) => {
      const call = embedCall(request.body);
      const client = await clients.client('embed', clients.scopeOf('embed', call.model));
      const meta = call.user === undefined ? {} : { meta: { user: call.user } };
      const response = await client.embed(call.texts, { signal, ...tenant(request), ...meta });
      reply.header('x-pgw-source', response.sources.at(-1) ?? '');
      reply.header('x-pgw-call-id', response.callStats.logicalCallId);
      if (response.costUsd !== undefined) reply.header('x-pgw-cost-usd', String(response.costUsd));
      return reply.send(embeddingList(response, call.base64));
    }),
  );

  app.get('/v1/models', async () => {
    const created = Math.floor(Date.now() / 1000);
    const names = clients.modelNames();
    return { object: 'list', data: names.map((id) => ({ id, object: 'model', created, owned_by: 'pgw' })) };
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    if (parts.draining()) return reply.code(503).send({ status: 'draining' });
    const problems = await clients.assemblyProblems();
    if (problems.length > 0) return reply.code(503).send({ status: 'unavailable', problems });
    return { status: 'ready' };
  });

  app.get('/metrics', async (_request, reply) => reply.type('text/plain; version=0.0.4; charset=utf-8').send(metrics.text()));
}

const tenant = (request: FastifyRequest) => (request.tenantId === undefined ? {} : { tenantId: request.tenantId });

/** Runs one governed request under its own controller: the client going away, or the drain running out, aborts it. */
async function governed(parts: RouteParts, reply: FastifyReply, handle: (signal: AbortSignal) => Promise<unknown>): Promise<unknown> {
  const controller = new AbortController();
  const unwatch = abortOnDisconnect(reply.raw, controller);
  parts.inflight.add(controller);
  parts.metrics.requestStarted();
  try {
    return await handle(controller.signal);
  } catch (error) {
    // The caller is gone: there is nobody to answer.
    if (controller.signal.aborted && reply.raw.destroyed) return reply.hijack();
    throw error;
  } finally {
    unwatch();
    parts.inflight.delete(controller);
    parts.metrics.requestEnded();
  }
}

function sendCompletion(reply: FastifyReply, response: LLMResponse): FastifyReply {
  reply.header('x-pgw-source', response.source);
  reply.header('x-pgw-call-id', response.callStats.logicalCallId);
  if (response.costUsd !== undefined) reply.header('x-pgw-cost-usd', String(response.costUsd));
  return reply.send(chatCompletion(response));
}

