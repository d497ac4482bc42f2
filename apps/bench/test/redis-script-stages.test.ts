import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { unescapeMonitor } from '../src/redis-script-stages.js';

/** What Redis's `sdscatrepr` makes of a string's bytes, as MONITOR shows an argument. */
function monitorRepr(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    if (char === '\\' || char === '"') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (byte >= 0x20 && byte < 0x7f) out += char;
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

it('a script shown escaped by MONITOR is recovered byte for byte (its digest is what EVALSHA names)', () => {
  const lua = `-- open→half_open, ≥ min_samples\nlocal s = "a\\\\b" .. '\t'\r\nreturn {s, "\x01"}`;
  const recovered = unescapeMonitor(monitorRepr(lua));
  expect(recovered).toBe(lua);
  expect(createHash('sha1').update(recovered).digest('hex')).toBe(createHash('sha1').update(lua).digest('hex'));
});
