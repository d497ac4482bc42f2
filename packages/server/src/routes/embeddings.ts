/** `POST /v1/embeddings`: OpenAI's embeddings over @pgw/wire's translation. */
import type { FastifyInstance } from 'fastify';
import { embedCall, embeddingList } from '@pgw/wire';
import { callerOptions, callMeta, governed, PROTECTED, scopeOf, type RouteParts } from './governed.js';

export function registerEmbeddingsRoute(app: FastifyInstance, parts: RouteParts): void {
  app.post('/v1/embeddings', PROTECTED, (request, reply) =>
    governed(parts, request, reply, async (controller) => {
      const call = embedCall(request.body);
      const client = await parts.clients.client('embed', scopeOf(parts, request, 'embed', call.model));
      const meta = { ...callMeta(request), ...(call.user !== undefined && { user: call.user }) };
      const response = await client.embed(call.texts, { signal: controller.signal, ...callerOptions(request), meta });
      reply.header('x-pgw-source', response.sources.at(-1) ?? '');
      reply.header('x-pgw-call-id', response.callStats.logicalCallId);
      if (response.costUsd !== undefined) reply.header('x-pgw-cost-usd', String(response.costUsd));
      return reply.send(embeddingList(response, call.base64));
    }),
  );
}
