/**
 * The HTTP routes: OpenAI's chat completions and responses (JSON and SSE, responses stored for their
 * continuation), Anthropic's messages, embeddings and models, and the
 * operator's health, readiness and metrics. Every `/v1` route is declared `protected`: the guard
 * (`door.ts`) checks the key on the route the router matched, after it decoded the path.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessLog } from '../operations/access-log.js';
import { estimatePromptTokens, type LLMResponse } from '@pgw/client';
import { mayCall, type RequestCaller } from '../door/caller.js';
import { chatCall } from '../chat-request.js';
import { chatCompletion } from '../chat-response.js';
import { abortOnDisconnect } from '../streaming/disconnect.js';
import { embedCall, embeddingList } from '../embeddings.js';
import type { InflightCalls } from '../door/inflight.js';
import { outcomeOfStatus, type RequestOutcome, type ServerMetrics } from '../operations/metrics.js';
import { withAdmission, type Admission } from '../streaming/call-context.js';
import { failureAnswer } from '../door/http-errors.js';
import { ResponseNotFoundError, ServerDrainingError, UnauthorizedError, UnknownModelError } from '../door/request-error.js';
import type { ClientKind, ScopeClients } from '../scope-clients.js';
import type { ServerSettings } from '../operations/server-settings.js';
import { countTokensMessages, messagesCall } from '../messages-request.js';
import { anthropicMessage } from '../messages-response.js';
import { responsesCall, type ResponsesCall } from '../responses-request.js';
import { responseObject, type ResponseObject } from '../responses-response.js';
import type { StoredResponses } from './stored-responses.js';
import { registerBatchRoutes } from '../batches/batch-routes.js';
import type { ServerBatches } from '../batches/batches.js';
import { chatEncoder, messagesEncoder, responsesEncoder, streamAnswer, type EncoderFor, type StreamCall } from '../streaming/sse.js';

export interface RouteParts {
  clients: ScopeClients;
  metrics: ServerMetrics;
  /** Whether a request's headers may read `/metrics`. */
  metricsOpenTo: (headers: FastifyRequest['headers']) => boolean;
  settings: ServerSettings;
  inflight: InflightCalls;
  stored: StoredResponses;
  batches: ServerBatches;
  log: AccessLog;
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
    /** Set by the door on every protected route it lets in. */
    caller?: RequestCaller;
  }
}

const PROTECTED = { config: { protected: true } satisfies RouteConfig };
const ANTHROPIC = { config: { protected: true, protocol: 'anthropic' } satisfies RouteConfig };

export function registerRoutes(app: FastifyInstance, parts: RouteParts): void {
  const { clients, metrics, settings, stored } = parts;
  // A model outside the key's list is answered as an unknown one: a key cannot probe which models exist.
  const scopeOf = (request: FastifyRequest, kind: ClientKind, model: string) => {
    if (!mayCall(callerOf(request), model)) throw new UnknownModelError(model);
    return clients.scopeOf(kind, model);
  };
  const limits = { heartbeatMs: settings.sseHeartbeatMs, writeStallMs: settings.writeStallMs };

  const chatRoute = <C extends ChatRouteCall>(
    parse: (request: FastifyRequest) => C | Promise<C>,
    encoderOf: (call: C, request: FastifyRequest) => EncoderFor,
    whole: (response: LLMResponse, call: C, request: FastifyRequest) => unknown,
  ) =>
    (request: FastifyRequest, reply: FastifyReply) =>
      governed(parts, request, reply, async (controller) => {
        const call = await parse(request);
        const client = await clients.client('chat', scopeOf(request, 'chat', call.model));
        const options = { ...call.options, signal: controller.signal, ...callerOptions(request), meta: { ...call.options.meta, ...callMeta(request) } };
        if (call.stream) return streamAnswer(client, { ...call, options }, reply, controller, limits, encoderOf(call, request));
        const response = await client.chat(call.messages, options);
        if (call.headers !== undefined) reply.headers(call.headers);
        return answerHeaders(reply, response).send(await whole(response, call, request));
      });

  /** A continuation is parsed again over its stored conversation; a kept response is stored before the caller learns it finished. */
  const responsesRequest = async (request: FastifyRequest) => {
    const { hostedTools } = settings;
    const call = responsesCall(request.body, { hostedTools });
    if (call.previousResponseId === undefined) return call;
    return responsesCall(request.body, { hostedTools, prior: await stored.conversationOf(tenantOf(request), call.previousResponseId) });
  };
  // A paid-for answer is answered even when it cannot be kept (its store is the governance's, so this is rare); the fault is logged.
  const keep = (call: ResponsesCall, request: FastifyRequest) => async (response: ResponseObject) => {
    if (call.echo.store) await stored.keep(tenantOf(request), response, call.input).catch((error: unknown) => parts.log.fault(request.id, error));
  };

  app.post('/v1/chat/completions', PROTECTED, chatRoute(({ body }) => chatCall(body), chatEncoder, (response) => chatCompletion(response)));
  app.post(
    '/v1/responses',
    PROTECTED,
    chatRoute(responsesRequest, (call, request) => responsesEncoder(call, keep(call, request)), async (response, call, request) => {
      const object = responseObject(response, call.echo, call.namespaced);
      await keep(call, request)(object);
      return object;
    }),
  );
  app.get<{ Params: { id: string } }>('/v1/responses/:id', PROTECTED, async (request) => {
    const { id } = request.params;
    const response = await stored.responseOf(tenantOf(request), id);
    if (response === undefined) throw new ResponseNotFoundError(id);
    return response;
  });
  app.delete<{ Params: { id: string } }>('/v1/responses/:id', PROTECTED, async (request) => {
    const { id } = request.params;
    if (!(await stored.delete(tenantOf(request), id))) throw new ResponseNotFoundError(id);
    return { id, object: 'response', deleted: true };
  });
  // `?beta=true` (Claude Code) is a query: the route is the same.
  app.post('/v1/messages', ANTHROPIC, chatRoute(({ body }) => messagesCall(body), messagesEncoder, (response) => anthropicMessage(response)));
  app.post('/v1/messages/count_tokens', ANTHROPIC, async (request) => ({ input_tokens: estimatePromptTokens(countTokensMessages(request.body)) }));

  app.post('/v1/embeddings', PROTECTED, (request, reply) =>
    governed(parts, request, reply, async (controller) => {
      const call = embedCall(request.body);
      const client = await clients.client('embed', scopeOf(request, 'embed', call.model));
      const meta = { ...callMeta(request), ...(call.user !== undefined && { user: call.user }) };
      const response = await client.embed(call.texts, { signal: controller.signal, ...callerOptions(request), meta });
      reply.header('x-pgw-source', response.sources.at(-1) ?? '');
      reply.header('x-pgw-call-id', response.callStats.logicalCallId);
      if (response.costUsd !== undefined) reply.header('x-pgw-cost-usd', String(response.costUsd));
      return reply.send(embeddingList(response, call.base64));
    }),
  );

  registerBatchRoutes(app, parts.batches, settings.maxFileMb, callerOf);

  app.get('/v1/models', PROTECTED, async (request) => {
    const names = clients.modelNames().filter((name) => mayCall(callerOf(request), name));
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
    const problems = [...(await clients.assemblyProblems()), ...(await stored.problems())];
    if (problems.length > 0) return reply.code(503).send({ status: 'unavailable', problems });
    return { status: 'ready' };
  });

  // Its tenant labels say who calls and how much: on a server with keys, only an operator's key reads them.
  app.get('/metrics', async (request, reply) => {
    if (!parts.metricsOpenTo(request.headers)) throw new UnauthorizedError();
    return reply.type(metrics.contentType).send(await metrics.text());
  });
}

/** What every protocol's chat request becomes: the governed call's arguments, and whether it streams. */
interface ChatRouteCall extends StreamCall {
  model: string;
  stream: boolean;
}

const callerOf = (request: FastifyRequest): RequestCaller => request.caller ?? { priority: 'interactive' };
/** The caller's part of every call's options: the one place the server hands its tenant and priority to the clients. */
const callerOptions = (request: FastifyRequest) => {
  const { tenantId, priority } = callerOf(request);
  return { ...(tenantId !== undefined && { tenantId }), priority };
};
/** What every call's telemetry row and events carry of its request: its id and the route it came by (the metrics' protocol). */
const callMeta = (request: FastifyRequest) => ({ requestId: request.id, route: request.routeOptions.url });
/** Without keys every caller is the one tenant `""`. */
const tenantOf = (request: FastifyRequest) => callerOf(request).tenantId ?? '';

/**
 * Runs one governed request under its own controller: the client going away, a stalled reader, or
 * the drain running out aborts it.
 */
async function governed(parts: RouteParts, request: FastifyRequest, reply: FastifyReply, handle: (controller: AbortController) => Promise<unknown>): Promise<unknown> {
  const controller = new AbortController();
  const unwatch = abortOnDisconnect(reply.raw, controller);
  const end = parts.inflight.begin(controller);
  const admission: Admission = { startedAt: performance.now() };
  let outcome: RequestOutcome = 'ok';
  parts.metrics.requestStarted();
  try {
    return await withAdmission(admission, () => handle(controller));
  } catch (error) {
    // The caller is gone: there is nobody to answer.
    if (controller.signal.aborted && reply.raw.destroyed) {
      outcome = 'cancelled';
      return reply.hijack();
    }
    const thrown = controller.signal.reason instanceof ServerDrainingError ? controller.signal.reason : error;
    outcome = outcomeOfStatus(failureAnswer(thrown).status);
    throw thrown;
  } finally {
    unwatch();
    end();
    parts.metrics.requestEnded();
    const { tenantId = '', priority } = callerOf(request);
    parts.metrics.tenantRequest(tenantId, priority, outcome, admission.waitMs);
  }
}

/** Which source answered, the call id and its cost, on a whole answer of any protocol. */
function answerHeaders(reply: FastifyReply, response: LLMResponse): FastifyReply {
  reply.header('x-pgw-source', response.source);
  reply.header('x-pgw-call-id', response.callStats.logicalCallId);
  if (response.costUsd !== undefined) reply.header('x-pgw-cost-usd', String(response.costUsd));
  return reply;
}
