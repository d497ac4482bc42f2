/**
 * The HTTP routes: one file per protocol over @pgw/wire (chat.ts, responses.ts, messages.ts,
 * embeddings.ts, each a governed call: governed.ts), the batch APIs (batches/: OpenAI's and Anthropic's), models, and the
 * operator's health, readiness and metrics. Every `/v1` route is declared `protected`: the guard
 * (door/door.ts) checks the key on the route the router matched, after it decoded the path.
 */
import type { FastifyInstance } from 'fastify';
import { mayCall } from '../door/caller.js';
import { UnauthorizedError } from '../door/request-error.js';
import { registerBatchRoutes } from '../batches/batch-routes.js';
import { registerMessageBatchRoutes } from '../batches/message-batch-routes.js';
import { registerChatRoute } from './chat.js';
import { registerEmbeddingsRoute } from './embeddings.js';
import { callerOf, PROTECTED, type RouteParts } from './governed.js';
import { registerMessagesRoutes } from './messages.js';
import { registerResponsesRoutes } from './responses.js';

export function registerRoutes(app: FastifyInstance, parts: RouteParts): void {
  const { clients, metrics, settings, stored } = parts;
  registerChatRoute(app, parts);
  registerResponsesRoutes(app, parts);
  registerMessagesRoutes(app, parts);
  registerEmbeddingsRoute(app, parts);
  registerBatchRoutes(app, parts.batches, settings.maxFileMb, callerOf);
  registerMessageBatchRoutes(app, parts.batches);

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
