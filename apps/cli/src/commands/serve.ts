/**
 * `pgw serve`: the governed clients behind an OpenAI-compatible HTTP server (@pgw/server), built
 * from the same keys as the library. SIGTERM (or Ctrl-C) drains: for up to `PGW_SERVER__DRAIN_S`
 * the server answers 503 to new calls while those in flight finish, then telemetry is flushed; a
 * second signal exits at once. SIGHUP reads the key file again. `--mock` serves every scope the
 * server routes to from the local mock upstream, so an SDK or an agent can be pointed at it with
 * nothing configured.
 */
import { GatewayServer, loadServerSettings } from '@pgw/server';
import { effectiveEnv } from '../effective-env.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { withMockedScopes } from '../local-mock.js';
import { warnOnStderr } from '../warn.js';

export interface ServeFlags {
  host: string;
  port: number;
  envFile?: string;
  allowUnauthenticated?: boolean;
  mock?: boolean;
}

/** The scopes a server routes to (those `PGW_SERVER__MODELS` names, else LLM and EMBED), each with a model the mock answers as. */
function servedScopes(env: ReadonlyMap<string, string>): ReadonlyMap<string, string> {
  const { models } = loadServerSettings(Object.fromEntries(env));
  const scopes = models ? new Set(models.values()) : new Set(['LLM', 'EMBED']);
  return new Map([...scopes].map((scope) => [scope, scope === 'EMBED' ? 'text-embedding-3-small' : 'gpt-4o-mini']));
}

export function runServe(flags: ServeFlags, interrupt: AbortSignal): Promise<ExitCode> {
  return withMockedScopes(flags, servedScopes, (envSource) => serve(flags, envSource.env ?? Object.fromEntries(effectiveEnv(envSource.envFile)), interrupt));
}

async function serve(flags: ServeFlags, env: Record<string, string>, interrupt: AbortSignal): Promise<ExitCode> {
  const server = new GatewayServer({ env, warn: warnOnStderr });
  const { keys, models, drainMs } = server.settings;
  const url = await server.listen({ host: flags.host, port: flags.port, allowUnauthenticated: flags.allowUnauthenticated ?? false });
  const auth = keys.size > 0 ? `${keys.size} API key(s)` : 'no API keys (PGW_SERVER__KEYS unset): anyone who can reach this address may call';
  const routing = models ? `models ${[...models].map(([model, scope]) => `${model}→${scope}`).join(', ')}` : 'chat → scope LLM, embeddings → scope EMBED';
  const upstream = flags.mock ? ' · every scope served by the local mock upstream' : '';
  const consoleAccess = keys.size === 0 && server.settings.adminKeys.size === 0 ? 'open' : server.settings.adminKeys.size > 0 ? 'admin key' : 'closed: no PGW_SERVER__ADMIN_KEYS';
  const metrics = server.metricsUrl === undefined ? '' : ` · metrics ${server.metricsUrl} (open)`;
  process.stderr.write(`pgw serve: listening on ${url} · ${auth} · ${routing}${upstream} · console ${url}/ui (${consoleAccess})${metrics}\n`);

  const reload = () => {
    if (server.settings.keysFile === undefined) process.stderr.write('pgw serve: SIGHUP: the keys are not read from a file, nothing to reload\n');
    else if (server.reloadKeys()) process.stderr.write('pgw serve: keys reloaded\n');
  };
  process.on('SIGHUP', reload);

  const stopping = new Promise<void>((resolve) => {
    const stop = () => {
      process.stderr.write(`pgw serve: draining (up to ${drainMs / 1000} s; signal again to exit at once)\n`);
      process.once('SIGTERM', () => process.exit(EXIT.terminated));
      resolve();
    };
    process.once('SIGTERM', stop);
    interrupt.addEventListener('abort', stop, { once: true });
  });
  await stopping;
  process.off('SIGHUP', reload);
  await server.drain();
  process.stderr.write('pgw serve: stopped\n');
  return EXIT.ok;
}
