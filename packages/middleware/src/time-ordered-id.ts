/**
 * Time-ordered ids (UUIDv7 layout: 48-bit Unix milliseconds, version 7, variant 10, 74 random bits)
 * for the attempt and logical-call ids. They go into indexed telemetry columns, where random
 * UUIDv4s scatter every insert across the index; ids that grow with time append. Random bytes are
 * drawn in batches, so an id costs one string build, not one crypto call.
 */
import { randomFillSync } from 'node:crypto';

const BYTES_PER_ID = 10;
const random = Buffer.alloc(BYTES_PER_ID * 256);
let offset = random.length;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
// Ids come by the thousand per millisecond: the time part is built once per millisecond.
let prefixMs = Number.NaN;
let prefix = '';

export function timeOrderedId(nowMs: number = Date.now()): string {
  if (offset === random.length) {
    randomFillSync(random);
    offset = 0;
  }
  const r = offset;
  offset += BYTES_PER_ID;
  if (nowMs !== prefixMs) {
    const time = Math.max(0, Math.floor(nowMs)).toString(16).padStart(12, '0').slice(-12);
    prefixMs = nowMs;
    prefix = `${time.slice(0, 8)}-${time.slice(8)}-7`;
  }
  return (
    `${prefix}${HEX[random[r]! & 0x0f]![1]}${HEX[random[r + 1]!]}-` +
    `${HEX[(random[r + 2]! & 0x3f) | 0x80]}${HEX[random[r + 3]!]}-` +
    `${HEX[random[r + 4]!]}${HEX[random[r + 5]!]}${HEX[random[r + 6]!]}${HEX[random[r + 7]!]}${HEX[random[r + 8]!]}${HEX[random[r + 9]!]}`
  );
}
