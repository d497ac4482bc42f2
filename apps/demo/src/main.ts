/** `pnpm demo`: governed calls against the local mock on embedded defaults, then a summary. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runDemo } from './demo.js';
import { renderSummary } from './report.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '16' },
    'embed-texts': { type: 'string', default: '200' },
    sqlite: { type: 'string', default: path.join(repoRoot, '.pgw/demo-telemetry.sqlite') },
  },
});

function positiveInteger(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) {
    console.error(`--${name} must be an integer >= 1, got ${raw}`);
    process.exit(2);
  }
  return value;
}

const result = await runDemo({
  calls: positiveInteger('calls', values.calls),
  concurrency: positiveInteger('concurrency', values.concurrency),
  embedTexts: positiveInteger('embed-texts', values['embed-texts']),
  sqlitePath: path.resolve(values.sqlite),
});
console.log(renderSummary(result));
