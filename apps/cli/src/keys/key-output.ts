/** How `pgw keys` shows keys in the terminal: a short table for lists, one block for `show`. */
import { defuseControls } from '../defuse-controls.js';
import { formatInstant, formatUsd } from '../report/format.js';
import { renderTable } from '../text-table.js';
import type { KeyRecord } from './key-record.js';

/** A bound of the key: `10`, or `–` for 0 (no bound). */
const limit = (bound: number) => (bound > 0 ? String(bound) : '–');

/** `3 / 10`, or `3 (no bound)`. */
export function usedOf(used: number, bound: number): string {
  return bound > 0 ? `${used} / ${bound}` : `${used} (no bound)`;
}

/** `$1.00/day`, or `–` without a budget. */
export function budgetText(budget: KeyRecord['budget']): string {
  return budget === null ? '–' : `${formatUsd(budget.usd)}/${budget.window}`;
}

const instant = (iso: string | null, none: string) => {
  if (iso === null) return none;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? formatInstant(ms) : iso;
};

export function keysTable(records: readonly KeyRecord[]): string {
  if (records.length === 0) return 'no keys\n';
  const columns = [
    { header: 'id' }, { header: 'name' }, { header: 'tenant' }, { header: 'prefix' }, { header: 'state' },
    { header: 'rpm', align: 'right' as const }, { header: 'tpm', align: 'right' as const }, { header: 'conc', align: 'right' as const },
    { header: 'budget' }, { header: 'expires' }, { header: 'last used' },
  ];
  const rows = records.map((r) => [
    r.id,
    r.name ?? '',
    r.tenant,
    `${r.prefix}…`,
    r.state,
    limit(r.limits.rpm),
    limit(r.limits.tpm),
    limit(r.limits.maxConcurrency),
    budgetText(r.budget),
    instant(r.expiresAt, 'never'),
    instant(r.lastUsedAt, 'never'),
  ]);
  return `${renderTable(columns, rows, '')}\n`;
}

/** One key, field by field, with its use against its bounds when the answer carries it. */
export function keyBlock(record: KeyRecord): string {
  const { usage } = record;
  const lines: [string, string][] = [
    ['id', record.id],
    ['name', record.name ?? '–'],
    ['tenant', record.tenant],
    ['prefix', `${record.prefix}…`],
    ['state', record.state],
    ['priority', record.priority],
    ['models', record.models === null ? 'all' : record.models.join(', ') || 'none'],
    ['mcp', record.mcp === null ? 'all' : record.mcp.join(', ') || 'none'],
    ['rpm', usage ? usedOf(usage.rpmUsed, record.limits.rpm) : limit(record.limits.rpm)],
    ['tpm', usage ? usedOf(usage.tpmUsed, record.limits.tpm) : limit(record.limits.tpm)],
    ['in flight', usage ? usedOf(usage.inflight, record.limits.maxConcurrency) : limit(record.limits.maxConcurrency)],
    ['budget', budgetLine(record)],
    ['expires', instant(record.expiresAt, 'never')],
    ['created', instant(record.createdAt, '–')],
    ['last used', instant(record.lastUsedAt, 'never')],
  ];
  const width = Math.max(...lines.map(([label]) => label.length));
  return lines.map(([label, value]) => `${label.padEnd(width)}  ${defuseControls(value)}`).join('\n') + '\n';
}

function budgetLine(record: KeyRecord): string {
  if (record.budget === null) return record.usage ? `${formatUsd(record.usage.spentUsd)} spent (no budget)` : '–';
  const per = record.budget.window === 'total' ? 'in total' : `per ${record.budget.window}`;
  const of = `${formatUsd(record.budget.usd)} ${per}`;
  return record.usage ? `${formatUsd(record.usage.spentUsd)} of ${of}` : of;
}
