/**
 * The serve bench's stage breakdown: where a request's time goes at 512 connections, from the stamps
 * plain/serve-stages.mjs takes inside `pgw serve` and the load generator's own latencies. Each is
 * split into the run's first seconds — when the load's new connections wait to be accepted — and the
 * rest, the steady state, so a storm of connections and the service order of accepted requests are
 * judged apart.
 */
import { percentiles } from './harness.js';

/** One answer as the load generator saw it: when it arrived (epoch ms) and how long it took. */
export interface Answer {
  atMs: number;
  latencyMs: number;
}

/** One request's stamps (epoch ms; null when not taken): ready, parsed, sent upstream, upstream headers, answered, and 1 when it was its connection's first. */
export type StampedRequest = [ready: number | null, parsed: number, sent: number | null, headers: number | null, answered: number, first: 0 | 1];

export const STAGE_CONNECTIONS = 512;
/** The first seconds of the run, apart from the rest. */
export const EARLY_S = 3;

interface Stage {
  name: string;
  /** The stage's duration for one request, or undefined when the request has no such stage. */
  of(request: StampedRequest): number | undefined;
}

const between = (from: number | null, to: number | null) => (from === null || to === null ? undefined : to - from);

const STAGES: readonly Stage[] = [
  { name: 'accepted → parsed (a connection’s first request)', of: ([ready, parsed, , , , first]) => (first === 1 ? between(ready, parsed) : undefined) },
  { name: 'previous answer → parsed (each later request on the connection)', of: ([ready, parsed, , , , first]) => (first === 0 ? between(ready, parsed) : undefined) },
  { name: 'parsed → sent upstream (body, validation, admission)', of: ([, parsed, sent]) => between(parsed, sent) },
  { name: 'sent → upstream headers', of: ([, , sent, headers]) => between(sent, headers) },
  { name: 'upstream headers → answered', of: ([, , , headers, answered]) => between(headers, answered) },
  { name: 'parsed → answered (the server’s time)', of: ([, parsed, , , answered]) => answered - parsed },
];

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const cells = (values: readonly number[]) => (values.length === 0 ? ['0', '-', '-', '-', '-'] : [String(values.length), ...percentiles(values, [50, 99, 99.9, 100]).map(fmt)]);

/** The breakdown as markdown lines: a row per stage, and the load generator's latency, each for the first seconds and the rest. */
export function stageTable(startMs: number, answers: readonly Answer[], stamped: readonly StampedRequest[], requestsPerS: number): string[] {
  const earlyEndMs = startMs + EARLY_S * 1000;
  const split = <T>(items: readonly T[], atMs: (item: T) => number, value: (item: T) => number | undefined) => {
    const early: number[] = [];
    const later: number[] = [];
    for (const item of items) {
      const v = value(item);
      if (v !== undefined) (atMs(item) < earlyEndMs ? early : later).push(v);
    }
    return [...cells(early), ...cells(later)];
  };
  const row = (name: string, values: string[]) => `| ${name} | ${values.join(' | ')} |`;
  return [
    `### Where the time goes at ${STAGE_CONNECTIONS} connections`,
    '',
    `A \`pgw serve\` of its own with \`apps/bench/plain/serve-stages.mjs\` loaded (Node's and undici's diagnostics channels; ${requestsPerS.toFixed(0)} requests/s in this run), the whole-JSON chat completion at ${STAGE_CONNECTIONS} connections; ms, by when the answer left: the run's first ${EARLY_S} s (the load's new connections waiting to be accepted) and the rest.`,
    '',
    `| stage | requests, first ${EARLY_S} s | p50 | p99 | p99.9 | max | requests, after | p50 | p99 | p99.9 | max |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...STAGES.map((stage) => row(stage.name, split(stamped, (request) => request[4], stage.of))),
    row('**the load generator’s latency** (request written → answer read)', split(answers, (answer) => answer.atMs, (answer) => answer.latencyMs)),
    '',
  ];
}
