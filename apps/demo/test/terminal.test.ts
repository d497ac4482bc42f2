import { describe, expect, it } from 'vitest';
import { terminal } from '../src/terminal.js';

function recording(isTTY: boolean) {
  const writes: string[] = [];
  return { stream: { isTTY, write: (text: string) => writes.push(text) }, text: () => writes.join('') };
}

describe("the demo's stderr", () => {
  it('prints each warning once, on a line of its own after the bar drawn in place', () => {
    const { stream, text } = recording(true);
    const out = terminal(stream);
    const bar = out.progress('chat', 2);
    bar.tick();
    out.warn('telemetry: better-sqlite3 does not load');
    out.warn('telemetry: better-sqlite3 does not load');
    bar.tick();
    bar.done();
    out.warn('another');
    expect(text()).toBe(
      '\rchat [###############---------------] 1/2\nwarning: telemetry: better-sqlite3 does not load\n' +
        '\rchat [##############################] 2/2\nwarning: another\n',
    );
  });

  it('off a TTY, warnings come between whole progress lines', () => {
    const { stream, text } = recording(false);
    const out = terminal(stream);
    const bar = out.progress('embed', 1);
    out.warn('first');
    bar.tick();
    out.warn('first');
    bar.done();
    expect(text()).toBe('warning: first\nembed: 1/1\n');
  });
});
