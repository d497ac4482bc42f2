/** How much each benchmark does: `--quick` (under 5 minutes on 2 cores) or the full run. */

export type Mode = 'quick' | 'full';

export interface ModePlan {
  chat: { concurrencies: number[]; rounds: number; callsPerRound: Record<number, number> };
  stream: { streams: number; rounds: number };
  governance: { fleets: number[]; admissionsPerWorker: number; inFlightPerWorker: number };
  telemetry: { capacityRows: number; concurrency: number; callsPerRound: number; rounds: number };
  memory: { calls: number; connectionCounts: number[]; settleTimeoutMs: number };
}

export const PLANS: Record<Mode, ModePlan> = {
  quick: {
    chat: { concurrencies: [1, 64, 512], rounds: 3, callsPerRound: { 1: 150, 64: 1000, 512: 1500 } },
    stream: { streams: 1000, rounds: 2 },
    governance: { fleets: [1, 4], admissionsPerWorker: 1500, inFlightPerWorker: 8 },
    telemetry: { capacityRows: 20_000, concurrency: 64, callsPerRound: 1000, rounds: 4 },
    memory: { calls: 10_000, connectionCounts: [10_000], settleTimeoutMs: 120_000 },
  },
  full: {
    chat: { concurrencies: [1, 64, 512], rounds: 7, callsPerRound: { 1: 500, 64: 4000, 512: 5000 } },
    stream: { streams: 1000, rounds: 5 },
    // 4 × 6000 admissions stay well inside one 60 s TPM window, so the final check sees every settle.
    governance: { fleets: [1, 4], admissionsPerWorker: 6000, inFlightPerWorker: 8 },
    telemetry: { capacityRows: 100_000, concurrency: 64, callsPerRound: 3000, rounds: 7 },
    memory: { calls: 10_000, connectionCounts: [64, 10_000], settleTimeoutMs: 300_000 },
  },
};
