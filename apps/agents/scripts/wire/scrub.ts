/**
 * What makes a recorded body differ from run to run or machine to machine, replaced by stable
 * placeholders of the same shape: the run's folders, the machine's name, user and kernel, UUIDs (each
 * distinct one numbered, so a body that repeats an id still does), long hex digests, dates and clock
 * times. Very long texts (agents' instructions, tool descriptions) are cut to their start and a marker;
 * no key or array item is ever dropped.
 */
import os from 'node:os';

/** A text longer than this keeps its first KEEP characters. */
const LONG = 1_200;
const KEEP = 400;

export interface Scrubber {
  /** `value` with every string scrubbed; one scrubber per fixture file keeps its UUIDs' numbering. */
  body<T>(value: T): T;
}

/**
 * `paths`: the folders of the runs (the agents' temporary homes), replaced by `/home/user`. The
 * user's own home is not replaced: no client runs in it (the SDKs' bodies hold no paths), and as
 * `/root` it would hit texts that merely contain that word. `maps`: the keys whose objects are maps
 * the client writes in an order of its own each run (Codex's `client_metadata`), written sorted.
 */
export function scrubber(paths: readonly string[], maps: readonly string[] = []): Scrubber {
  const uuids = new Map<string, string>();
  const exact: [string, string][] = [
    ...[...paths].sort((a, b) => b.length - a.length).map((path): [string, string] => [path, '/home/user']),
    [os.release(), '6.0.0-kernel'],
  ];
  const words: [RegExp, string][] = [
    [new RegExp(`\\b${escape(os.hostname())}\\b`, 'g'), 'host'],
    [new RegExp(`(/home/|/Users/)${escape(os.userInfo().username)}\\b`, 'g'), '$1user'],
  ];
  const uuid = (match: string) => {
    if (!uuids.has(match.toLowerCase())) uuids.set(match.toLowerCase(), `00000000-0000-${match[14]}000-8000-${String(uuids.size + 1).padStart(12, '0')}`);
    return uuids.get(match.toLowerCase())!;
  };
  const text = (value: string): string => {
    let out = value;
    for (const [from, to] of exact) out = out.split(from).join(to);
    for (const [pattern, to] of words) out = out.replace(pattern, to);
    out = out
      .replace(/(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])/gi, uuid)
      .replace(/(?<![0-9a-f])[0-9a-f]{32,}(?![0-9a-f])/g, (hex) => '0'.repeat(hex.length))
      // What Codex's shell tool reports of one run (its output chunk's id, the time it took).
      .replace(/Chunk ID: [0-9a-f]+/g, 'Chunk ID: 000000')
      .replace(/Wall time: \d+(\.\d+)? seconds/g, 'Wall time: 0.0000 seconds')
      .replace(/(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)/g, '2026-01-01')
      .replace(/(?<![\d:])\d{2}:\d{2}:\d{2}(?![\d])/g, '00:00:00')
      .replace(/\b\d{10}(\d{3})?\b/g, (epoch) => (epoch.length === 10 ? '1767225600' : '1767225600000'));
    return out.length > LONG ? `${out.slice(0, KEEP)}…[${out.length - KEEP} characters cut by the recorder]` : out;
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(maps.includes(key) ? sorted(item) : item)]));
    return value;
  };
  return { body: <T>(value: T) => walk(value) as T };
}

function sorted(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
