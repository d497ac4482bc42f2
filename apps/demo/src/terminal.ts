/** A progress bar on a TTY; periodic plain lines elsewhere (CI logs stay readable). */
export interface Progress {
  tick(): void;
  done(): void;
}

export function progressBar(label: string, total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  let count = 0;
  let lastDecile = -1;
  const width = 30;
  const render = () => {
    if (stream.isTTY) {
      const filled = Math.round((count / total) * width);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${count}/${total}`);
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
    },
  };
}
