/**
 * Time-ordered ids (UUIDv7 layout: 48-bit Unix milliseconds, version 7, variant 10, 74 random bits)
 * for the attempt and logical-call ids. They go into indexed telemetry columns, where random
 * UUIDv4s scatter every insert across the index; ids that grow with time append. Random bytes are
 * drawn in batches, so an id costs one string, not one crypto call.
 */
import { randomFillSync } from 'node:crypto';

const BYTES_PER_ID = 10;
const random = Buffer.alloc(BYTES_PER_ID * 256);
let offset = random.length;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
/**
 * The id is written as ASCII into this buffer and read out as one string: building it from pieces
 * made a dozen intermediate strings per id (two ids per call).
 */
const text = Buffer.from('00000000-0000-7000-8000-000000000000', 'latin1');
/** Where the random hex digits go: after the version digit, after the variant digit, and the last group. */
const RANDOM_DIGITS = [15, 16, 17, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];
// Ids come by the thousand per millisecond: the time part is written once per millisecond.
let prefixMs = Number.NaN;

export function timeOrderedId(nowMs: number = Date.now()): string {
  if (offset === random.length) {
    randomFillSync(random);
    offset = 0;
  }
  if (nowMs !== prefixMs) {
    prefixMs = nowMs;
    const time = Math.max(0, Math.floor(nowMs)).toString(16).padStart(12, '0').slice(-12);
    text.write(time.slice(0, 8), 0, 'latin1');
    text.write(time.slice(8), 9, 'latin1');
  }
  // 18 random hex digits from 9 bytes; the tenth byte gives the variant's two random bits.
  for (let i = 0; i < RANDOM_DIGITS.length; i += 2) {
    const byte = random[offset + (i >> 1)]!;
    text[RANDOM_DIGITS[i]!] = HEX_DIGITS[byte >> 4]!;
    text[RANDOM_DIGITS[i + 1]!] = HEX_DIGITS[byte & 0x0f]!;
  }
  offset += BYTES_PER_ID;
  // The variant: the first digit of the fourth group is 8, 9, a or b.
  text[19] = HEX_DIGITS[8 | (random[offset - 1]! & 0x03)]!;
  return text.toString('latin1');
}
