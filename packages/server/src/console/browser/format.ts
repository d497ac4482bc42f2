/** How the page writes numbers, bounds and times. */
import type { BreakerSnapshot, GateSnapshot } from './snapshot.js';

/** `3 / 10`, or `3 (no bound)` for a gate without one. */
export function bound(use: GateSnapshot): string {
  return use.bound > 0 ? `${use.used} / ${use.bound}` : `${use.used} (no bound)`;
}

/** A key's spend against its budget: `$0.2500 of $1.00 per day`; without a budget, what it spent. */
export function budgetUse(spentUsd: number | undefined, budget: { readonly usd: number; readonly window: string } | null): string {
  if (budget === null) return spentUsd === undefined ? 'no budget' : `${usd(spentUsd)} (no budget)`;
  const per = budget.window === 'total' ? 'in total' : `per ${budget.window}`;
  return `${spentUsd === undefined ? '' : `${usd(spentUsd)} of `}${usd(budget.usd)} ${per}`;
}

/** When a key expires, in the browser's locale; `expired` once past, `never` without an expiry. */
export function expiryText(expiresAt: string | null, now: number): string {
  if (expiresAt === null) return 'never';
  const at = Date.parse(expiresAt);
  return at <= now ? 'expired' : new Date(at).toLocaleString();
}

/** When a key was last used (known to a minute), in the browser's locale. */
export function lastUsedText(lastUsedAt: string | null): string {
  return lastUsedAt === null ? 'never' : new Date(Date.parse(lastUsedAt)).toLocaleString();
}

/** Four decimals under a dollar (a call's cost), two above. */
export function usd(value: number): string {
  return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

/** A chart's number: whole from 100, one decimal from 10, two below. */
export function chartNumber(value: number): string {
  return value >= 100 ? String(Math.round(value)) : value.toFixed(value >= 10 ? 1 : 2);
}

/** The time of day in the browser's locale. */
export function clockTime(ms: number): string {
  return new Date(ms).toLocaleTimeString();
}

/** When a budget resets, in the browser's locale. */
export function resetText(resetAt: number | null | undefined): string {
  return resetAt === undefined || resetAt === null ? 'never (total)' : new Date(resetAt).toLocaleString();
}

export function errorsText(errors: readonly { readonly errorClass: string; readonly count: number }[]): string {
  return errors.length === 0 ? '—' : errors.map((e) => `${e.errorClass} ×${e.count}`).join(', ');
}

/** The breaker's state, with the whole seconds left while it is open. */
export function breakerText(breaker: BreakerSnapshot, now: number): string {
  if (breaker.state === 'open' && breaker.openUntil > now) return `${breaker.state} · ${Math.ceil((breaker.openUntil - now) / 1000)} s left`;
  return breaker.state;
}
