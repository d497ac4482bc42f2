/**
 * The console's batches panel: the newest batches of every tenant, each with its progress, its rate
 * over the last minute, the time it still needs at that rate, and its cost so far. The counts are
 * the batch store's (on a shared engine, the fleet's); the rate is measured from the counts this
 * process read at its refreshes, so it needs two refreshes to show.
 */
import type { JobProgress } from '@pgw/core';
import type { ConsolePanel, ConsoleTable } from './state.js';

export const MAX_CONSOLE_BATCHES = 20;
const RATE_WINDOW_MS = 60_000;

interface Sample {
  at: number;
  finished: number;
}

const COLUMNS = ['Batch', 'Tenant', 'Status', 'Done', 'Failed', 'In flight', 'Total', 'Rate', 'Time left', 'Cost'];

export function batchesPanel(recent: (limit: number) => Promise<JobProgress[]>, now: () => number = Date.now): ConsolePanel {
  const samples = new Map<string, Sample[]>();
  return {
    id: 'batches',
    title: 'Batches',
    async read(): Promise<ConsoleTable> {
      const jobs = await recent(MAX_CONSOLE_BATCHES);
      const at = now();
      const seen = new Set(jobs.map((job) => job.job));
      for (const job of samples.keys()) if (!seen.has(job)) samples.delete(job);
      const rows = jobs.map((job) => {
        const finished = job.done + job.failed;
        const kept = (samples.get(job.job) ?? []).filter((sample) => sample.at > at - RATE_WINDOW_MS);
        kept.push({ at, finished });
        samples.set(job.job, kept);
        const first = kept[0]!;
        const perSecond = at > first.at ? ((finished - first.finished) * 1000) / (at - first.at) : undefined;
        const left = job.total - finished;
        return [
          job.job,
          job.tenantId === '' ? '(none)' : job.tenantId,
          job.pauseReason === undefined ? job.status : `${job.status} (${job.pauseReason})`,
          job.done,
          job.failed,
          job.inFlight,
          job.total,
          perSecond === undefined || job.status !== 'running' ? '–' : `${perSecond.toFixed(1)}/s`,
          job.status !== 'running' || left === 0 ? '–' : perSecond === undefined || perSecond === 0 ? '…' : duration(left / perSecond),
          `$${job.costUsd.toFixed(4)}${job.budgetUsd === undefined ? '' : ` of $${job.budgetUsd.toFixed(2)}`}`,
        ];
      });
      return { columns: COLUMNS, rows };
    },
  };
}

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
