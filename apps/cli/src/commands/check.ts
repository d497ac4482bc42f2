/** `pgw check`: validates a scope's configuration (every bad key) and probes each source's health. */
import { loadEmbeddingSettings, loadGatewaySettings } from '@pgw/client';
import type { EnvRecord, GatewaySettings } from '@pgw/client';
import { checkConfig } from '../check/config-problems.js';
import { isHealthy, probeSource, type ProbeKind } from '../check/probe-source.js';
import { defuseControls } from '../defuse-controls.js';
import { effectiveEnv } from '../effective-env.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { MOCK_HINT, withEnvSource, type MockableFlags } from '../local-mock.js';
import { formatMs } from '../report/format.js';
import { shorten } from '../shorten.js';
import { renderTable } from '../text-table.js';

export interface CheckFlags extends MockableFlags {
  /** Default: `embed` for the scope named EMBED (EmbeddingClient's default), else `chat`. */
  kind?: ProbeKind;
  /** Per-source probe budget in ms. */
  timeout: number;
}

export async function runCheck(flags: CheckFlags, signal: AbortSignal): Promise<ExitCode> {
  const kind = flags.kind ?? (flags.scope.toUpperCase() === 'EMBED' ? 'embed' : 'chat');
  const model = kind === 'embed' ? 'text-embedding-3-small' : 'gpt-4o-mini';
  return withEnvSource(flags, model, (envSource) =>
    checkScope(flags, kind, envSource.env === undefined ? effectiveEnv(envSource.envFile) : new Map(Object.entries(envSource.env)), signal),
  );
}

async function checkScope(flags: CheckFlags, kind: ProbeKind, env: ReadonlyMap<string, string>, signal: AbortSignal): Promise<ExitCode> {
  const warnings = new Set<string>();
  const warn = (message: string) => warnings.add(message);
  const load = (env: EnvRecord): GatewaySettings =>
    kind === 'embed' ? loadEmbeddingSettings(flags.scope, { env, warn }) : loadGatewaySettings(flags.scope, { env, warn });
  const { settings, problems } = checkConfig(load, env);

  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`pgw check — scope ${flags.scope.toUpperCase()} (${kind})`);
  for (const warning of warnings) out(`  warning: ${defuseControls(warning)}`);
  if (!settings) {
    out(`configuration: ${problems.length} problem(s)`);
    for (const problem of problems) out(`  ✗ ${defuseControls(problem.message)}`);
    if (!flags.mock) out(MOCK_HINT);
    return EXIT.config;
  }
  out(`configuration: ok, ${settings.sources.length} source(s)`);

  const results = await Promise.all(settings.sources.map((source) => probeSource(settings, source, kind, flags.timeout, signal)));
  out(
    renderTable(
      [
        { header: 'source' },
        { header: 'model' },
        { header: 'reachable' },
        { header: 'answer' },
        { header: 'latency', align: 'right' },
        { header: 'status' },
      ],
      results.map((r) => [
        r.source,
        r.model,
        `${r.reachable ? 'yes' : 'no'} (${r.reachDetail})`,
        shorten(r.answerDetail, 72),
        r.latencyMs === undefined ? '-' : formatMs(r.latencyMs),
        isHealthy(r) ? 'healthy' : 'UNHEALTHY',
      ]),
    ),
  );
  const unhealthy = results.filter((r) => !isHealthy(r)).length;
  out(unhealthy === 0 ? 'all sources healthy' : `${unhealthy} of ${results.length} source(s) unhealthy`);
  return unhealthy === 0 ? EXIT.ok : EXIT.unhealthy;
}
