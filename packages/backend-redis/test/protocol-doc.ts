/**
 * The README's table of the Lua scripts, rendered from their protocol declarations, so the two never
 * drift: the protocol test compares them, and `pnpm protocols:doc` (this file with `--write`) rewrites it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { ScriptProtocol } from '../src/protocol.js';

const README = new URL('../README.md', import.meta.url);
const BEGIN = '<!-- protocols:begin -->';
const END = '<!-- protocols:end -->';

type AnyProtocol = ScriptProtocol<readonly string[], readonly string[], readonly string[], readonly string[], Record<string, { code: number; fields: Record<string, 'number' | 'string'> }>>;

const list = (names: readonly string[]): string => (names.length === 0 ? '—' : names.map((name) => `\`${name}\``).join(', '));

export function protocolTable(protocols: readonly unknown[]): string {
  const rows = (protocols as AnyProtocol[]).map(({ spec }) => {
    const replies = Object.entries(spec.replies).map(([kind, { code, fields }]) => `**${kind}** (${code})${Object.keys(fields).length === 0 ? '' : `: ${list(Object.keys(fields))}`}`);
    const shared = spec.item?.shared;
    const sharedCells = shared === undefined ? '— | —' : `${list(shared.keys)} | ${list(shared.args)}`;
    return `| \`${spec.label}\` | ${list(spec.keys)} | ${list(spec.args)} | ${sharedCells} | ${list(spec.item?.keys ?? [])} | ${list(spec.item?.args ?? [])} | ${replies.join('; ')} |`;
  });
  const head = '| script | KEYS of the call | ARGV of the call | KEYS items share | ARGV items share | KEYS of an item | ARGV of an item | replies (code): fields |';
  return [head, '| --- | --- | --- | --- | --- | --- | --- | --- |', ...rows].join('\n');
}

export async function readmeTable(): Promise<string> {
  const text = await readFile(README, 'utf8');
  const from = text.indexOf(BEGIN);
  const to = text.indexOf(END);
  if (from < 0 || to < from) throw new Error(`README.md lacks the ${BEGIN} … ${END} block`);
  return text.slice(from + BEGIN.length, to).trim();
}

if (process.argv.includes('--write')) {
  const { PROTOCOLS } = await import('./protocols.js');
  const text = await readFile(README, 'utf8');
  const from = text.indexOf(BEGIN);
  const to = text.indexOf(END);
  await writeFile(README, `${text.slice(0, from + BEGIN.length)}\n${protocolTable(PROTOCOLS)}\n${text.slice(to)}`);
}
