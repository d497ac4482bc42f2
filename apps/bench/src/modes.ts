/** How much each benchmark does: `--quick` (under 5 minutes on 2 cores) or the full run. */

export type Mode = 'quick' | 'full';

export interface ModePlan {
  chat: { concurrencies: number[]; rounds: number; callsPerRound: Record<number, number>; minRoundMs: number };
  stream: { levels: number[]; shapes: Array<'packet' | 'burst'>; rounds: number; minRoundMs: number };
  governance: { fleets: number[]; admissionsPerWorker: number; inFlightPerWorker: number };
  telemetry: { capacityRows: number };
  memory: { calls: number; connectionCounts: number[]; settleTimeoutMs: number };
  sources: { sourceCounts: number[]; concurrency: number; callsPerRound: number; rounds: number };
}

export const PLANS: Record<Mode, ModePlan> = {
  quick: {
    chat: { concurrencies: [1, 64, 512], rounds: 3, callsPerRound: { 1: 200, 64: 2000, 512: 3000 }, minRoundMs: 1000 },
    stream: { levels: [1, 500], shapes: ['packet', 'burst'], rounds: 3, minRoundMs: 1000 },
    governance: { fleets: [1, 4], admissionsPerWorker: 1500, inFlightPerWorker: 8 },
    telemetry: { capacityRows: 20_000 },
    memory: { calls: 10_000, connectionCounts: [10_000], settleTimeoutMs: 120_000 },
    sources: { sourceCounts: [1, 8, 32, 64], concurrency: 64, callsPerRound: 2000, rounds: 3 },
  },
  full: {
    chat: { concurrencies: [1, 64, 512], rounds: 7, callsPerRound: { 1: 500, 64: 10_000, 512: 12_000 }, minRoundMs: 2000 },
    stream: { levels: [1, 500], shapes: ['packet', 'burst'], rounds: 5, minRoundMs: 2000 },
    // 4 × 6000 admissions stay well inside one 60 s TPM window, so the final check sees every settle.
    governance: { fleets: [1, 4], admissionsPerWorker: 6000, inFlightPerWorker: 8 },
    telemetry: { capacityRows: 100_000 },
    memory: { calls: 10_000, connectionCounts: [64, 10_000], settleTimeoutMs: 300_000 },
    sources: { sourceCounts: [1, 8, 32, 64], concurrency: 64, callsPerRound: 10_000, rounds: 7 },
  },
};
