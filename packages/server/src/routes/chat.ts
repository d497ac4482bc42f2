/** `POST /v1/chat/completions`: OpenAI's Chat Completions over @pgw/wire's translation (JSON and SSE). */
import type { FastifyInstance } from 'fastify';
import { chatCall, chatCompletion, chatEncoder } from '@pgw/wire';
import { chatRoute, PROTECTED, type RouteParts } from './governed.js';

export function registerChatRoute(app: FastifyInstance, parts: RouteParts): void {
  app.post(
    '/v1/chat/completions',
    PROTECTED,
    chatRoute(
      parts,
      ({ body }) => chatCall(body),
      (call) => (context) => chatEncoder(call, context.callId ?? ''),
      (response) => chatCompletion(response),
    ),
  );
}
