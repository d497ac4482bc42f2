/** `POST /v1/messages` and its token count: Anthropic's Messages over @pgw/wire's translation (JSON and SSE), errors in Anthropic's shape. */
import type { FastifyInstance } from 'fastify';
import { estimatePromptTokens } from '@pgw/core';
import { anthropicMessage, countTokensMessages, messagesCall, messagesEncoder } from '@pgw/wire';
import { ANTHROPIC, chatRoute, type RouteParts } from './governed.js';

export function registerMessagesRoutes(app: FastifyInstance, parts: RouteParts): void {
  // `?beta=true` (Claude Code) is a query: the route is the same.
  app.post(
    '/v1/messages',
    ANTHROPIC,
    chatRoute(
      parts,
      ({ body }) => messagesCall(body),
      (call) => (context) => messagesEncoder(call, context.callId ?? ''),
      (response) => anthropicMessage(response),
    ),
  );
  app.post('/v1/messages/count_tokens', ANTHROPIC, async (request) => ({ input_tokens: estimatePromptTokens(countTokensMessages(request.body)) }));
}
