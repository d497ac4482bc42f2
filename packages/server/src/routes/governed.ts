/**
 * What every route of a governed call shares: the parts it is built from, who calls (tenant,
 * priority, models), and `governed`, which runs one call under its own controller and counts it.
 * A chat route of any protocol is `chatRoute` over that protocol's parser, stream encoder and
 * answer shaper (@pgw/wire): a stream goes to streaming/, a whole answer is sent with its headers.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LLMResponse } from '@pgw/client';
import type { AccessLog } from '../operations/access-log.js';
import { mayCall, type RequestCaller } from '../door/caller.js';
import type { InflightCalls } from '../door/inflight.js';
import { failureAnswer } from '../door/http-errors.js';
import { ServerDrainingError, UnknownModelError } from '../door/request-error.js';
import { outcomeOfStatus, type RequestOutcome, type ServerMetrics } from '../operations/metrics.js';
import type { ServerSettings } from '../operations/server-settings.js';
import type { ClientKind, ScopeClients } from '../scope-clients.js';
import type { ServerBatches } from '../batches/batches.js';
import type { RequestCall, RequestCalls } from '../streaming/call-context.js';
import { abortOnDisconnect } from '../streaming/disconnect.js';
import { streamAnswer, type EncoderFor, type StreamCall } from '../streaming/sse.js';
import type { StoredResponses } from './stored-responses.js';

export interface RouteParts {
  clients: ScopeClients;
  metrics: ServerMetrics;
  /** Whether a request's headers may read `/metrics`. */
  metricsOpenTo: (headers: FastifyRequest['headers']) => boolean;
  settings: ServerSettings;
  inflight: InflightCalls;
  /** What each governed request learns of its call from the clients' events. */
  calls: RequestCalls;
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

export const PROTECTED = { config: { protected: true } satisfies RouteConfig };
export const ANTHROPIC = { config: { protected: true, protocol: 'anthropic' } satisfies RouteConfig };

/** What every protocol's chat request becomes: the governed call's arguments, and whether it streams. */
export interface ChatRouteCall extends StreamCall {
  model: string;
  stream: boolean;
}

/** A chat route of one protocol: its parser, its stream encoder, its whole answer's shape. */
export const chatRoute =
  <C extends ChatRouteCall>(
    parts: RouteParts,
    parse: (request: FastifyRequest) => C | Promise<C>,
    encoderOf: (call: C, request: FastifyRequest) => EncoderFor,
    whole: (response: LLMResponse, call: C, request: FastifyRequest) => unknown,
  ) =>
  (request: FastifyRequest, reply: FastifyReply) =>
    governed(parts, request, reply, async (controller, requestCall) => {
      const call = await parse(request);
      const client = await parts.clients.client('chat', scopeOf(parts, request, 'chat', call.model));
      const options = { ...call.options, signal: controller.signal, ...callerOptions(request), meta: { ...call.options.meta, ...callMeta(request) } };
      const limits = { heartbeatMs: parts.settings.sseHeartbeatMs, writeStallMs: parts.settings.writeStallMs };
      if (call.stream) return streamAnswer(client, { ...call, options }, reply, controller, requestCall, limits, encoderOf(call, request));
      const response = await client.chat(call.messages, options);
      if (call.headers !== undefined) reply.headers(call.headers);
      return answerHeaders(reply, response).send(await whole(response, call, request));
    });

/** A model outside the key's list is answered as an unknown one: a key cannot probe which models exist. */
export function scopeOf(parts: RouteParts, request: FastifyRequest, kind: ClientKind, model: string): string {
  if (!mayCall(callerOf(request), model)) throw new UnknownModelError(model);
  return parts.clients.scopeOf(kind, model);
}

export const callerOf = (request: FastifyRequest): RequestCaller => request.caller ?? { priority: 'interactive' };
/** The caller's part of every call's options: the one place the server hands its tenant and priority to the clients. */
export const callerOptions = (request: FastifyRequest) => {
  const { tenantId, priority, key } = callerOf(request);
  return { ...(tenantId !== undefined && { tenantId }), priority, ...(key !== undefined && { key }) };
};
/** What every call's telemetry row and events carry of its request: its id and the route it came by (the metrics' protocol). */
export const callMeta = (request: FastifyRequest) => ({ requestId: request.id, route: request.routeOptions.url });
/** Without keys every caller is the one tenant `""`. */
export const tenantOf = (request: FastifyRequest) => callerOf(request).tenantId ?? '';

/**
 * Runs one governed request under its own controller: the client going away, a stalled reader, or
 * the drain running out aborts it.
 */
export async function governed(
  parts: RouteParts,
  request: FastifyRequest,
  reply: FastifyReply,
  handle: (controller: AbortController, call: RequestCall) => Promise<unknown>,
): Promise<unknown> {
  const controller = new AbortController();
  const unwatch = abortOnDisconnect(reply.raw, controller);
  const end = parts.inflight.begin(controller);
  const { tenantId = '', priority } = callerOf(request);
  const call: RequestCall = { startedAt: performance.now() };
  const close = parts.calls.open(tenantId, request.id, call);
  let outcome: RequestOutcome = 'ok';
  parts.metrics.requestStarted();
  try {
    return await handle(controller, call);
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
    close();
    parts.metrics.requestEnded();
    parts.metrics.tenantRequest(tenantId, priority, outcome, call.waitMs);
  }
}

/** Which source answered, the call id and its cost, on a whole answer of any protocol. */
function answerHeaders(reply: FastifyReply, response: LLMResponse): FastifyReply {
  reply.header('x-pgw-source', response.source);
  reply.header('x-pgw-call-id', response.callStats.logicalCallId);
  if (response.costUsd !== undefined) reply.header('x-pgw-cost-usd', String(response.costUsd));
  return reply;
}
