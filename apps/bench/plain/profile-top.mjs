// Summarises a .cpuprofile: self time by function (name + file:line), top N, as a markdown table.
// `node apps/bench/plain/profile-top.mjs <file.cpuprofile> [N]`
import { readFileSync } from 'node:fs';

const [file, topArg = '20'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfSamples = new Map();
for (const id of profile.samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
const byFrame = new Map();
for (const [id, samples] of selfSamples) {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules\/\.pnpm\/[^/]+\/node_modules\/|packages\/)/, '')}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  byFrame.set(key, (byFrame.get(key) ?? 0) + samples);
}
const total = profile.samples.length;
console.log('| self % | frame |\n| --- | --- |');
for (const [frame, samples] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))) {
  console.log(`| ${((100 * samples) / total).toFixed(1)} | \`${frame}\` |`);
}
