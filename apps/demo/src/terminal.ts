/**
 * The demo's stderr: progress (a bar redrawn in place on a TTY, periodic plain lines elsewhere, so CI
 * logs stay readable) and the library's warnings, each printed once, on a line of its own after the
 * progress line (a bar drawn in place gets its line ended first, and redraws below on its next tick).
 */
export interface Progress {
  tick(): void;
  done(): void;
}

export interface TerminalStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface Terminal {
  progress(label: string, total: number): Progress;
  warn(message: string): void;
}

export function terminal(stream: TerminalStream = process.stderr): Terminal {
  const warned = new Set<string>();
  let midLine = false;
  const endLine = () => {
    if (midLine) stream.write('\n');
    midLine = false;
  };
  return {
    progress: (label, total) => progressBar(label, total, stream, (drawn) => (midLine = drawn)),
    warn(message) {
      if (warned.has(message)) return;
      warned.add(message);
      endLine();
      stream.write(`warning: ${message}\n`);
    },
  };
}

function progressBar(label: string, total: number, stream: TerminalStream, inLine: (drawn: boolean) => void): Progress {
  let count = 0;
  let lastDecile = -1;
  const width = 30;
  const render = () => {
    if (stream.isTTY) {
      const filled = Math.round((count / total) * width);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${count}/${total}`);
      inLine(true);
      return;
    }
    const decile = Math.floor((count / total) * 10);
    if (decile !== lastDecile) {
      lastDecile = decile;
      stream.write(`${label}: ${count}/${total}\n`);
    }
  };
  return {
    tick() {
      count++;
      render();
    },
    done() {
      if (stream.isTTY) stream.write('\n');
      inLine(false);
    },
  };
}
