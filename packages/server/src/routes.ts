/**
 * The HTTP routes: OpenAI's chat completions and responses (JSON and SSE), embeddings and models, and the
 * operator's health, readiness and metrics. Every `/v1` route is declared `protected`: the guard
 * (`door.ts`) checks the key on the route the router matched, after it decoded the path.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { estimatePromptTokens, type LLMResponse } from '@pgw/client';
import { chatCall } from './chat-request.js';
import { chatCompletion } from './chat-response.js';
import { abortOnDisconnect } from './disconnect.js';
import { embedCall, embeddingList } from './embeddings.js';
import type { InflightCalls } from './inflight.js';
import type { ServerMetrics } from './metrics.js';
import { ServerDrainingError } from './request-error.js';
import type { ScopeClients } from './scope-clients.js';
import type { ServerSettings } from './server-settings.js';
import { countTokensMessages, messagesCall } from './messages-request.js';
import { anthropicMessage } from './messages-response.js';
import { responsesCall } from './responses-request.js';
import { responseObject } from './responses-response.js';
import { chatEncoder, messagesEncoder, responsesEncoder, streamAnswer, type EncoderFor, type StreamCall } from './sse.js';

export interface RouteParts {
  clients: ScopeClients;
  metrics: ServerMetrics;
  settings: ServerSettings;
  inflight: InflightCalls;
  draining: () => boolean;
}

/** What a route declares in its `config`: a protected route needs a key (when keys are configured). */
export interface RouteConfig {
  protected?: boolean;
  /** The protocol whose error shape the route answers in (default OpenAI's). */
  protocol?: 'anthropic';
}

declare module 'fastify' {
  interface FastifyRequest {
    tenantId?: string;
  }
}

const PROTECTED = { config: { protected: true } satisfies RouteConfig };
const ANTHROPIC = { config: { protected: true, protocol: 'anthropic' } satisfies RouteConfig };

export function registerRoutes(app: FastifyInstance, parts: RouteParts): void {
  const { clients, metrics, settings } = parts;
  const limits = { heartbeatMs: settings.sseHeartbeatMs, writeStallMs: settings.writeStallMs };

  const chatRoute = <C extends ChatRouteCall>(parse: (body: unknown) => C, encoderOf: (call: C) => EncoderFor, whole: (response: LLMResponse, call: C) => unknown) =>
    (request: FastifyRequest, reply: FastifyReply) =>
      governed(parts, reply, async (controller) => {
        const call = parse(request.body);
        const client = await clients.client('chat', clients.scopeOf('chat', call.model));
        const options = { ...call.options, signal: controller.signal, ...tenant(request), meta: { ...call.options.meta, requestId: request.id } };
        if (call.stream) return streamAnswer(client, { ...call, options }, reply, controller, limits, encoderOf(call));
        const response = await client.chat(call.messages, options);
        return answerHeaders(reply, response).send(whole(response, call));
      });

  app.post('/v1/chat/completions', PROTECTED, chatRoute(chatCall, chatEncoder, (response) => chatCompletion(response)));
  app.post('/v1/responses', PROTECTED, chatRoute(responsesCall, responsesEncoder, (response, call) => responseObject(response, call.echo)));
  // `?beta=true` (Claude Code) is a query: the route is the same.
  app.post('/v1/messages', ANTHROPIC, chatRoute(messagesCall, messagesEncoder, (response) => anthropicMessage(response)));
  app.post('/v1/messages/count_tokens', ANTHROPIC, async (request) => ({ input_tokens: estimatePromptTokens(countTokensMessages(request.body)) }));

  app.post('/v1/embeddings', PROTECTED, (request, reply) =>
    governed(parts, reply, async (controller) => {
      const call = embedCall(request.body);
      const client = await clients.client('embed', clients.scopeOf('embed', call.model));
      const meta = { requestId: request.id, ...(call.user !== undefined && { user: call.user }) };
      const response = await client.embed(call.texts, { signal: controller.signal, ...tenant(request), meta });
      reply.header('x-pgw-source', response.sources.at(-1) ?? '');
      reply.header('x-pgw-call-id', response.callStats.logicalCallId);
      if (response.costUsd !== undefined) reply.header('x-pgw-cost-usd', String(response.costUsd));
      return reply.send(embeddingList(response, call.base64));
    }),
  );

  app.get('/v1/models', PROTECTED, async (request) => {
    const names = clients.modelNames();
    // Anthropic's clients send their API version on every request, and read their own list shape.
    if (request.headers['anthropic-version'] !== undefined) {
      const createdAt = new Date().toISOString();
      return { data: names.map((id) => ({ type: 'model', id, display_name: id, created_at: createdAt })), has_more: false, first_id: names[0] ?? null, last_id: names.at(-1) ?? null };
    }
    const created = Math.floor(Date.now() / 1000);
    return { object: 'list', data: names.map((id) => ({ id, object: 'model', created, owned_by: 'pgw' })) };
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  // The probe clients send before their first call (Claude Code's `HEAD /`): the server is up.
  app.get('/', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    if (parts.draining()) return reply.code(503).send({ status: 'draining' });
    const problems = await clients.assemblyProblems();
    if (problems.length > 0) return reply.code(503).send({ status: 'unavailable', problems });
    return { status: 'ready' };
  });

  app.get('/metrics', async (_request, reply) => reply.type(metrics.contentType).send(await metrics.text()));
}

/** What every protocol's chat request becomes: the governed call's arguments, and whether it streams. */
interface ChatRouteCall extends StreamCall {
  model: string;
  stream: boolean;
}

const tenant = (request: FastifyRequest) => (request.tenantId === undefined ? {} : { tenantId: request.tenantId });

/**
 * Runs one governed request under its own controller: the client going away, a stalled reader, or
 * the drain running out aborts it.
 */
async function governed(parts: RouteParts, reply: FastifyReply, handle: (controller: AbortController) => Promise<unknown>): Promise<unknown> {
  const controller = new AbortController();
  const unwatch = abortOnDisconnect(reply.raw, controller);
  const end = parts.inflight.begin(controller);
  parts.metrics.requestStarted();
  try {
    return await handle(controller);
  } catch (error) {
    // The caller is gone: there is nobody to answer.
    if (controller.signal.aborted && reply.raw.destroyed) return reply.hijack();
    if (controller.signal.reason instanceof ServerDrainingError) throw controller.signal.reason;
    throw error;
  } finally {
    unwatch();
    end();
    parts.metrics.requestEnded();
  }
}

/** Which source answered, the call id and its cost, on a whole answer of any protocol. */
function answerHeaders(reply: FastifyReply, response: LLMResponse): FastifyReply {
  reply.header('x-pgw-source', response.source);
  reply.header('x-pgw-call-id', response.callStats.logicalCallId);
  if (response.costUsd !== undefined) reply.header('x-pgw-cost-usd', String(response.costUsd));
  return reply;
}
