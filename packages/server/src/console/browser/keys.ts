/**
 * The Keys panel: every stored key with its bounds and its use against them, its budget spent, its
 * expiry and last use, and a Revoke button (the dialog and the request are revoke.ts's; the
 * question and what came of it are written here, where they are unit-tested).
 * Drawn from the snapshot like the other tables; never a key, only its prefix.
 */
import { bound, budgetUse, expiryText, lastUsedText } from './format.js';
import type { ConsoleSnapshot, KeySnapshot } from './snapshot.js';
import { row, table } from './tables.js';
import { h, type View, type ViewElement } from './view.js';

const COLUMNS = ['Key', 'Name', 'Tenant', 'Prefix', 'State', 'RPM', 'TPM', 'In flight', 'Budget', 'Expires', 'Last used', 'Action'];

/** A bound alone (`≤ 10`, `no bound`) when the key's use could not be read. */
const limitOnly = (limit: number) => (limit > 0 ? `≤ ${limit}` : 'no bound');

/** `used / bound` when the use is known, else the bound alone. */
export function gateUse(used: number | undefined, limit: number): string {
  return used === undefined ? limitOnly(limit) : bound({ used, bound: limit });
}

/** A key at any of its bounds (a gate full, its budget spent) is shown so. */
export function keyAtBound(key: KeySnapshot): boolean {
  const { usage, limits, budget } = key;
  if (usage === undefined) return false;
  const full = (used: number, limit: number) => limit > 0 && used >= limit;
  return full(usage.rpmUsed, limits.rpm) || full(usage.tpmUsed, limits.tpm) || full(usage.inflight, limits.maxConcurrency) || (budget !== null && usage.spentUsd >= budget.usd);
}

/** How a key is named to a person: its name and prefix, or its id and prefix. */
export function keyLabel(key: KeySnapshot): string {
  return `${key.name ?? key.id} (${key.prefix}…)`;
}

/** The question the confirmation dialog asks. */
export function revokeQuestion(key: KeySnapshot): string {
  return `Revoke ${keyLabel(key)} of tenant ${key.tenant}? Every server refuses it from now on, and it cannot be restored.`;
}

function stateCell(key: KeySnapshot): ViewElement {
  if (key.state === 'revoked') return h('td', {}, [h('span', { class: 'badge health-unknown' }, ['revoked'])]);
  const badges: View[] = [h('span', { class: `badge ${key.state === 'rotating' ? 'state-half_open' : 'within'}` }, [key.state])];
  if (keyAtBound(key)) badges.push(' ', h('span', { class: 'badge at-bound' }, ['at its bound']));
  return h('td', {}, badges);
}

function actionCell(key: KeySnapshot): ViewElement {
  if (key.state === 'revoked') return h('td', {}, ['—']);
  return h('td', {}, [h('button', { type: 'button', class: 'danger', 'data-revoke': key.id, 'data-focus-id': `revoke-${key.id}`, 'aria-label': `Revoke ${keyLabel(key)}` }, ['Revoke'])]);
}

export function keysTable(state: ConsoleSnapshot, now: number = state.generatedAt): ViewElement {
  const keys = state.keys;
  if (keys === undefined) return h('p', { class: 'empty' }, ['This server keeps no keys.']);
  if (keys.problem !== undefined) return h('p', { class: 'problem' }, [keys.problem]);
  const rows = keys.list.map((key) =>
    row({ 'data-key': key.id }, [
      h('td', { class: 'mono' }, [key.id]),
      key.name ?? '—',
      key.tenant,
      h('td', { class: 'mono' }, [`${key.prefix}…`]),
      stateCell(key),
      gateUse(key.usage?.rpmUsed, key.limits.rpm),
      gateUse(key.usage?.tpmUsed, key.limits.tpm),
      gateUse(key.usage?.inflight, key.limits.maxConcurrency),
      budgetUse(key.usage?.spentUsd, key.budget),
      expiryText(key.expiresAt, now),
      lastUsedText(key.lastUsedAt),
      actionCell(key),
    ]),
  );
  return table('Keys', COLUMNS, rows);
}

/** What the panel's status line says after the server answered a revoke with `status` and `body`. */
export function revokeOutcome(key: KeySnapshot, status: number, body: unknown): string {
  if (status >= 200 && status < 300) return `Revoked ${keyLabel(key)}.`;
  const error = (body as { error?: unknown } | null)?.error;
  const message = typeof error === 'string' ? error : typeof (error as { message?: unknown } | undefined)?.message === 'string' ? (error as { message: string }).message : `HTTP ${status}`;
  return `Not revoked: ${message}`;
}
