// @llmops/gateway ships a Hono app, not a server: serve it with @hono/node-server on loopback.
// argv[2]: the port (0 = any free one).
import { serve } from '@hono/node-server';
import app from '@llmops/gateway';

serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.argv[2] ?? 0) });
