/**
 * Parsers of flag values. Commander turns their InvalidArgumentError into a usage error (exit 2).
 * Time flags: an instant is an ISO 8601 date/time (UTC unless it names a zone) or a duration
 * meaning "that long ago" (`24h`, `7d`); an expiry's duration means "that long from now"; bucket
 * widths are durations.
 */
import { InvalidArgumentError } from 'commander';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)([smhdw])$/;
const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `90s`, `15m`, `24h`, `7d`, `2w` in milliseconds, or undefined if `text` is not a duration. */
export function durationMs(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
}

/** An ISO date/time (UTC unless it names a zone) in epoch ms, NaN when `text` is not one. */
function isoMs(text: string): number {
  const match = ISO.exec(text.trim());
  return match ? Date.parse(match[2] === undefined ? match[1]! : `${match[1]}T${match[2]}${match[3] ?? 'Z'}`) : NaN;
}

/** Parses `--since` / `--until`: epoch ms. */
export function parseInstant(text: string, now: number = Date.now()): number {
  const ago = durationMs(text);
  if (ago !== undefined) return now - ago;
  const ms = isoMs(text);
  if (!Number.isFinite(ms)) {
    throw new InvalidArgumentError('expected an ISO date/time (2026-11-30, 2026-11-30T08:00Z) or a duration ago (24h, 7d)');
  }
  return ms;
}

/** Parses `--bucket`: a positive duration of at least one second. */
export function parseBucket(text: string): number {
  const ms = durationMs(text);
  if (ms === undefined || ms < 1_000) throw new InvalidArgumentError('expected a duration of at least 1s (30s, 15m, 1h, 1d)');
  return ms;
}

export function positiveInteger(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('expected a positive integer');
  }
  return n;
}

/** A bound of a key (`--rpm`, `--grace-s`): 0 or more, 0 meaning none. */
export function nonNegativeInteger(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('expected a whole number, 0 or more');
  return n;
}

/** Parses `--expires-at`: an ISO date/time (UTC unless zoned) or a duration from now (`30d`), as an ISO instant. */
export function parseExpiry(text: string, now: number = Date.now()): string {
  const ahead = durationMs(text);
  if (ahead !== undefined) return new Date(now + ahead).toISOString();
  const ms = isoMs(text);
  if (!Number.isFinite(ms)) throw new InvalidArgumentError('expected an ISO date/time (2027-01-31, 2027-01-31T08:00Z) or a duration from now (30d, 12h)');
  return new Date(ms).toISOString();
}

/** A positive amount of USD (`--budget-usd`). */
export function positiveUsd(text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(n > 0)) throw new InvalidArgumentError('expected a positive number of USD');
  return n;
}

/** Parses `--port`: 0 (any free port) to 65535. */
export function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n > 65_535) throw new InvalidArgumentError('expected a port number 0–65535');
  return n;
}
