/** Tables (console and results.md are the same markdown) and the docs/architecture.md#performance targets, judged from one run's figures. */
import { CHAT_CONTENDERS, type ChatBenchResult } from './bench-chat.js';
import type { GovernanceBenchResult } from './bench-governance.js';
import type { MemoryRun } from './bench-memory.js';
import type { StreamBenchResult } from './bench-stream.js';
import type { TelemetryBenchResult } from './bench-telemetry.js';
import { formatRate, formatRatio, ratio } from './harness.js';
import type { Mode } from './modes.js';

export interface BenchResults {
  chat?: ChatBenchResult;
  stream?: StreamBenchResult;
  governance?: GovernanceBenchResult;
  telemetry?: TelemetryBenchResult;
  memory?: MemoryRun[];
}

export interface RunInfo {
  date: string;
  mode: Mode;
  machine: string;
  /** /proc/loadavg at the start and at the end of the run. */
  loadStart: string;
  loadEnd: string;
  mock: string;
  durationS: number;
}

export interface Target {
  benchmark: string;
  target: string;
  measured: string;
  met: boolean;
  /** Why, when not met. */
  note?: string;
}

export const RSS_TARGET_BYTES = 300 * 2 ** 20;
const MEMORY_RATIO_TARGET = 0.85;
const REDIS_RATIO_TARGET = 0.6;
const TELEMETRY_RATIO_TARGET = 0.9;

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const ms = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '' : value.toFixed(2));

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function chatTables(chat: ChatBenchResult): string {
  return chat.levels
    .map((level) => {
      const withLatency = level.concurrency === 1;
      const header = ['contender', 'calls/s (median)', 'ratio vs raw', ...(withLatency ? ['p50 ms', 'p99 ms', 'added p50 ms'] : [])];
      const rows = level.rows.map((row) => [
        row.name,
        formatRate(row.callsPerSecond),
        formatRatio(row.ratioVsRaw),
        ...(withLatency ? [ms(row.p50Ms), ms(row.p99Ms), ms(row.addedP50Ms)] : []),
      ]);
      return `**Concurrency ${level.concurrency}** (${level.callsPerRound} calls per round, ${chat.connections} connections each)\n\n${table(header, rows)}`;
    })
    .join('\n\n');
}

export function streamTable(stream: StreamBenchResult): string {
  const rows = stream.rows.map((r) => [r.name, formatRate(r.streamsPerSecond), formatRate(r.tokensPerSecond), formatRatio(r.ratioVsRaw)]);
  return (
    `${stream.streams} concurrent streams × ${stream.tokensPerStream} tokens, ${stream.connections} connections each; ` +
    `watchdog first token ${stream.watchdog.firstTokenMs} ms, inter-token ${stream.watchdog.interTokenMs} ms\n\n` +
    table(['contender', 'streams/s (median)', 'tokens/s', 'ratio vs raw'], rows)
  );
}

export function governanceTable(governance: GovernanceBenchResult): string {
  const rows = governance.fleets.map((f) => [
    String(f.workers),
    String(f.admissions),
    formatRate(f.cyclesPerSecond),
    String(f.denied),
    `inflight ${f.check.inflight}, tpmUsed ${f.check.tpmUsed} vs settled ${f.check.settledSum}, rpmUsed ${f.check.rpmUsed} vs admitted ${f.check.admitted}`,
    f.check.pass ? 'PASS' : 'FAIL',
  ]);
  return (
    `${governance.admissionsPerWorker} admissions per worker, ${governance.inFlightPerWorker} permits held at once per worker; ` +
    `one cycle = tryEnter + settle(actual) + release (3 Lua scripts)\n\n` +
    table(['workers', 'admissions', 'cycles/s (all workers)', 'denied', 'final accounting', 'check'], rows) +
    `\n\nScaling, ${governance.fleets.at(-1)!.workers} workers over 1: ${formatRatio(governance.scaling)}`
  );
}

export function telemetryTables(telemetry: TelemetryBenchResult): string {
  const capacity = table(
    ['store', 'rows', 'rows/s', 'written', 'dropped'],
    telemetry.capacity.map((c) => [c.store, String(c.rows), formatRate(c.rowsPerSecond), String(c.written), String(c.dropped)]),
  );
  const during = table(
    ['contender', 'calls/s (median)', 'ratio vs off', 'rows/s while calls ran', 'rows written', 'dropped'],
    telemetry.duringCalls.map((r) => [
      r.name,
      formatRate(r.callsPerSecond),
      formatRatio(r.ratioVsOff),
      r.rowsPerSecond === undefined ? '' : formatRate(r.rowsPerSecond),
      r.written === undefined ? '' : `${r.written} of ${r.calls}`,
      r.dropped === undefined ? '' : String(r.dropped),
    ]),
  );
  return (
    `Store capacity (the recorder alone, synthetic attempt rows, one flush at the end):\n\n${capacity}\n\n` +
    `Governed calls at concurrency ${telemetry.concurrency}, ${telemetry.callsPerRound} calls per round:\n\n${during}`
  );
}

export function memoryTable(runs: readonly MemoryRun[]): string {
  const rows = runs.map((r) => [
    `${r.calls} calls, ${r.connections} connections`,
    `${r.onTheWire}`,
    `${mib(r.baseline.rssBytes)} / ${mib(r.baseline.heapUsedBytes)}`,
    `${mib(r.peak.rssBytes)} / ${mib(r.peak.heapUsedBytes)}`,
    `${(r.heapPerCallBytes / 1024).toFixed(1)} KiB`,
    `${mib(r.afterAbort.rssBytes)} / ${mib(r.afterAbort.heapUsedBytes)}`,
    `${r.afterAbort.aborted} aborted, inflight ${r.afterAbort.inflightAfter}, signal listeners ${r.peak.signalListeners} → ${r.afterAbort.signalListenersAfter}`,
    r.pass ? 'PASS' : 'FAIL',
  ]);
  return table(
    ['run', 'on the wire', 'baseline RSS / heap', 'peak RSS / heap', 'heap per call', 'after abort RSS / heap', 'after abort', 'check'],
    rows,
  );
}

/** One titled section per benchmark that produced results, in benchmark order. */
export function renderSections(results: BenchResults): Array<[bench: keyof BenchResults, title: string, body: string]> {
  const sections: Array<[keyof BenchResults, string, string]> = [];
  if (results.chat) sections.push(['chat', '1. Chat throughput (non-streaming)', chatTables(results.chat)]);
  if (results.stream) sections.push(['stream', '2. Streaming', streamTable(results.stream)]);
  if (results.governance) {
    sections.push(['governance', '3. Redis governance (worker processes sharing one scope)', governanceTable(results.governance)]);
  }
  if (results.telemetry) sections.push(['telemetry', '4. Telemetry', telemetryTables(results.telemetry)]);
  if (results.memory) sections.push(['memory', '5. Memory with calls held in flight', memoryTable(results.memory)]);
  return sections;
}

export function evaluateTargets(results: BenchResults): Target[] {
  const targets: Target[] = [];
  const { chat, governance, telemetry, memory } = results;
  if (chat) {
    const addedP50 = chat.levels.find((l) => l.concurrency === 1)?.rows.find((r) => r.name === CHAT_CONTENDERS.memory)?.addedP50Ms;
    const cpuNote =
      'on a zero-latency loopback mock the per-call CPU of governance (admission, breaker, selector, abort wiring, telemetry row) is the whole difference' +
      (addedP50 === undefined ? '' : `; it adds ${addedP50.toFixed(2)} ms p50 per call, under 1% of a real upstream's ≥ 100 ms`);
    for (const level of chat.levels) {
      const row = (name: string) => level.rows.find((r) => r.name === name);
      const memoryRow = row(CHAT_CONTENDERS.memory);
      const redisRow = row(CHAT_CONTENDERS.redis);
      if (memoryRow) {
        const met = memoryRow.ratioVsRaw >= MEMORY_RATIO_TARGET;
        targets.push({
          benchmark: `chat c=${level.concurrency}`,
          target: `governed (memory) / raw ≥ ${MEMORY_RATIO_TARGET}`,
          measured: formatRatio(memoryRow.ratioVsRaw),
          met,
          ...(!met && { note: cpuNote }),
        });
      }
      if (redisRow) {
        const met = redisRow.ratioVsRaw >= REDIS_RATIO_TARGET;
        targets.push({
          benchmark: `chat c=${level.concurrency}`,
          target: `governed (redis) / raw ≥ ${REDIS_RATIO_TARGET}`,
          measured: formatRatio(redisRow.ratioVsRaw),
          met,
          ...(!met && {
            note: 'each call runs four Redis round trips (breaker acquire, limiter enter, breaker record, settle-and-release) whose Lua costs about 145 µs of server CPU per call, on the same two cores as the client',
          }),
        });
      }
      const sdks = [row(CHAT_CONTENDERS.openai), row(CHAT_CONTENDERS.aiSdk)].filter((r) => r !== undefined);
      if (memoryRow && sdks.length > 0) {
        const slower = sdks.filter((sdk) => sdk.callsPerSecond >= memoryRow.callsPerSecond);
        targets.push({
          benchmark: `chat c=${level.concurrency}`,
          target: 'governed (memory) faster than the openai SDK and the AI SDK',
          measured: sdks.map((sdk) => `${formatRatio(ratio(memoryRow.callsPerSecond, sdk.callsPerSecond))}× ${sdk.name}`).join(', '),
          met: slower.length === 0,
          ...(slower.length > 0 && { note: `not faster than ${slower.map((s) => s.name).join(' and ')} in this run` }),
        });
      }
    }
  }
  if (governance) {
    const fleet = governance.fleets.at(-1)!;
    targets.push({
      benchmark: 'redis governance',
      target: `exact final accounting across ${fleet.workers} workers (inflight 0, tpmUsed = Σ settled)`,
      measured: fleet.check.pass ? 'PASS' : 'FAIL',
      met: fleet.check.pass,
      ...(!fleet.check.pass && { note: `inflight ${fleet.check.inflight}, tpmUsed ${fleet.check.tpmUsed} vs ${fleet.check.settledSum}` }),
    });
  }
  if (telemetry) {
    for (const row of telemetry.duringCalls.filter((r) => r.store !== undefined)) {
      const met = row.ratioVsOff >= TELEMETRY_RATIO_TARGET && row.dropped === 0;
      targets.push({
        benchmark: 'telemetry',
        target: `${row.store} telemetry costs < 10% throughput, no row dropped`,
        measured: `ratio ${formatRatio(row.ratioVsOff)}, dropped ${row.dropped}`,
        met,
        ...(!met && {
          note:
            row.dropped !== 0
              ? 'the recorder queue overflowed: rows were dropped rather than slowing calls'
              : 'the store writes on the same two cores as the calls (SQLite synchronously in the event loop; Postgres server CPU)',
        }),
      });
    }
  }
  if (memory) {
    for (const run of memory) {
      const met = run.peak.rssBytes < RSS_TARGET_BYTES && run.pass;
      targets.push({
        benchmark: `memory, ${run.connections} connections`,
        target: `${run.calls} calls in flight under 300 MB RSS; inflight back to 0 after abort`,
        measured: `${mib(run.peak.rssBytes)} RSS (baseline ${mib(run.baseline.rssBytes)}), ${run.pass ? 'PASS' : 'FAIL'}`,
        met,
        ...(!met && {
          note: run.pass
            ? `baseline ${mib(run.baseline.rssBytes)} is Node + the tsx loader + workspace sources compiled at run time; the calls add ${mib(run.peak.rssBytes - run.baseline.rssBytes)} (${(run.heapPerCallBytes / 1024).toFixed(1)} KiB heap each)`
            : 'the abort check failed (see the table)',
        }),
      });
    }
  }
  return targets;
}

export function targetsTable(targets: readonly Target[]): string {
  return table(
    ['benchmark', 'target', 'measured', 'met', 'why not'],
    targets.map((t) => [t.benchmark, t.target, t.measured, t.met ? 'met' : 'not met', t.note ?? '']),
  );
}

export function renderMarkdown(info: RunInfo, results: BenchResults, targets: readonly Target[], errors: Record<string, string>, notes: readonly string[]): string {
  const lines = [
    '# PolyGateway-TS benchmarks',
    '',
    `- Date: ${info.date}`,
    `- Mode: ${info.mode} (run time ${info.durationS.toFixed(0)} s)`,
    `- Machine: ${info.machine}`,
    `- Load average (/proc/loadavg) at start: ${info.loadStart}; at end: ${info.loadEnd}`,
    `- Mock upstream: ${info.mock}`,
    '',
    'The machine is shared and noisy: absolute figures vary run to run; the ratios, measured side by side',
    'in one process with interleaved rounds, are the result. Produced by `pnpm bench` (see apps/bench/README.md).',
    '',
    '## Targets (docs/architecture.md#performance)',
    '',
    targetsTable(targets),
    '',
  ];
  for (const [, title, body] of renderSections(results)) lines.push(`## ${title}`, '', body, '');
  for (const [bench, error] of Object.entries(errors)) lines.push(`## ${bench}: FAILED`, '', '```', error, '```', '');
  if (notes.length > 0) lines.push('## Notes', '', ...notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}
