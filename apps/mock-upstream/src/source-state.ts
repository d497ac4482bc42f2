import { hashString, mulberry32 } from './rng.js';
import type { Counters, RecordedRequest, RouteName, SourceScript, Step, StepFamily } from './types.js';

const DEFAULT_FAILURE_STEPS: readonly Step[] = [{ kind: 'status', status: 500 }];

function zeroCounters(): Counters {
  return { chat: 0, embeddings: 0, ocrText: 0, parse: 0, health: 0, models: 0, total: 0, inflight: 0 };
}

/** One scripted source: its script, step cursors, seeded RNG, counters and recordings. */
export class SourceState {
  readonly name: string;
  script: SourceScript;
  counters: Counters = zeroCounters();
  recordings: RecordedRequest[] = [];
  private readonly seed: number;
  private cursors = new Map<StepFamily, number>();
  private random: () => number;

  constructor(name: string, script: SourceScript, seed: number) {
    this.name = name;
    this.script = script;
    // Each source draws from its own stream, so one source's traffic never shifts another's failures.
    this.seed = (seed ^ hashString(name)) >>> 0;
    this.random = mulberry32(this.seed);
  }

  /** Replaces the script and rewinds its step queues and RNG. */
  replaceScript(script: SourceScript): void {
    this.script = script;
    this.rewind();
  }

  /** Counters, recordings, step queues and RNG back to start. */
  reset(): void {
    this.counters = { ...zeroCounters(), inflight: this.counters.inflight };
    this.recordings = [];
    this.rewind();
  }

  arrive(route: RouteName | undefined): void {
    this.counters.total++;
    this.counters.inflight++;
    if (route) this.counters[route]++;
  }

  depart(): void {
    this.counters.inflight = Math.max(0, this.counters.inflight - 1);
  }

  /** The step this request of `family` plays: next queued step, else a seeded failure, else `otherwise`. */
  nextStep(family: StepFamily): Step {
    const steps = this.script.steps ?? [];
    const cursor = this.cursors.get(family) ?? 0;
    if (cursor < steps.length) {
      this.cursors.set(family, cursor + 1);
      return steps[cursor]!;
    }
    const rate = this.script.failureRate ?? 0;
    if (rate > 0 && this.random() < rate) {
      const pool = this.script.failureSteps?.length ? this.script.failureSteps : DEFAULT_FAILURE_STEPS;
      return pool[Math.floor(this.random() * pool.length)]!;
    }
    return this.script.otherwise ?? { kind: 'ok' };
  }

  private rewind(): void {
    this.cursors = new Map();
    this.random = mulberry32(this.seed);
  }
}
