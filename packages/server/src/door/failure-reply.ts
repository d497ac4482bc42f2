/** An error answer in the protocol of the route it came to: Anthropic's shape on its routes, OpenAI's elsewhere. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { failureHeaders, type FailureAnswer } from './http-errors.js';
import { anthropicFailure, errorBody } from '@pgw/wire';
import type { RouteConfig } from '../routes/governed.js';

export function replyFailure(request: FastifyRequest, reply: FastifyReply, failure: FailureAnswer): FastifyReply {
  reply.headers(failureHeaders(failure));
  if ((request.routeOptions.config as RouteConfig | undefined)?.protocol !== 'anthropic') return reply.code(failure.status).send(errorBody(failure));
  const { status, body } = anthropicFailure(failure);
  return reply.code(status).send(body);
}
