/**
 * `POST /v1/responses` over @pgw/wire's translation (JSON and SSE), and `GET` / `DELETE
 * /v1/responses/{id}`: the route reads the stored conversation a continuation names and hands its
 * items to the pure parser; a kept response is stored before the caller learns it finished.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { responseObject, responsesCall, responsesEncoder, type ResponseObject, type ResponsesCall } from '@pgw/wire';
import { ResponseNotFoundError } from '../door/request-error.js';
import { chatRoute, PROTECTED, tenantOf, type RouteParts } from './governed.js';

export function registerResponsesRoutes(app: FastifyInstance, parts: RouteParts): void {
  const { settings, stored } = parts;
  /** A continuation is parsed again over its stored conversation. */
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

  app.post(
    '/v1/responses',
    PROTECTED,
    chatRoute(
      parts,
      responsesRequest,
      (call, request) => (context) => responsesEncoder(call, context.callId ?? '', keep(call, request)),
      async (response, call, request) => {
        const object = responseObject(response, call.echo, call.namespaced);
        await keep(call, request)(object);
        return object;
      },
    ),
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
}
