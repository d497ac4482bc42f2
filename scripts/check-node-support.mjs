#!/usr/bin/env node
// The Nodes the project supports, said once and checked everywhere: the majors of .ci/node-versions
// (what .ci/run tests on) must be the README's and docs/architecture.md's "Node 20, 22 and 24", every
// `node:` matrix of the workflows, and every manifest's `engines.node` (`>=` a release of the oldest
// major, which every pinned version satisfies). Runs in `pnpm lint`, with a self-check that a
// disagreement is caught.
import fs from 'node:fs';
import path from 'node:path';
import { root, workspacePackages } from './lib/workspace.mjs';

const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');

function pinnedVersions(text) {
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
}

const numbers = (version) => version.split('.').map(Number);
const atLeast = (version, floor) => {
  const [a, b] = [numbers(version), numbers(floor)];
  for (let i = 0; i < 3; i += 1) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
};
const phrase = (majors) => `Node ${majors.slice(0, -1).join(', ')} and ${majors.at(-1)}`;

/** Every disagreement between the pinned versions and what the sources say. */
function disagreements({ pinned, docs, workflows, manifests }) {
  const majors = [...new Set(pinned.map((version) => Number(version.split('.')[0])))].sort((a, b) => a - b);
  const found = [];
  if (majors.length < 2) found.push(`.ci/node-versions: expected at least two majors, got ${pinned.join(', ') || 'none'}`);
  for (const [file, text] of Object.entries(docs)) {
    const lists = [...text.matchAll(/\bNode \d+(?:, \d+)* and \d+\b/g)].map(([list]) => list);
    if (lists.length === 0) found.push(`${file}: says nowhere "${phrase(majors)}"`);
    for (const list of lists) if (list !== phrase(majors)) found.push(`${file}: says "${list}", .ci/node-versions "${phrase(majors)}"`);
  }
  for (const [file, text] of Object.entries(workflows)) {
    for (const [, list] of text.matchAll(/^\s*node: \[([^\]]*)\]/gm)) {
      const matrix = list.split(',').map((entry) => Number(entry.trim()));
      if (matrix.join() !== majors.join()) found.push(`${file}: node matrix [${list}], .ci/node-versions [${majors.join(', ')}]`);
    }
  }
  for (const [name, engines] of Object.entries(manifests)) {
    const floor = engines?.match(/^>=(\d+(?:\.\d+){0,2})$/)?.[1];
    if (floor === undefined) found.push(`${name}: engines.node ${engines ?? '(none)'} is not ">=<version>"`);
    else if (Number(floor.split('.')[0]) !== majors[0]) found.push(`${name}: engines.node ${engines} does not start at Node ${majors[0]}`);
    else for (const version of pinned) if (!atLeast(version, floor)) found.push(`${name}: engines.node ${engines} excludes the tested ${version}`);
  }
  return found;
}

const workflowsDir = '.github/workflows';
const sources = {
  pinned: pinnedVersions(read('.ci/node-versions')),
  docs: Object.fromEntries(['README.md', 'docs/architecture.md'].map((file) => [file, read(file)])),
  workflows: Object.fromEntries(fs.readdirSync(path.join(root, workflowsDir)).map((file) => [`${workflowsDir}/${file}`, read(`${workflowsDir}/${file}`)])),
  manifests: Object.fromEntries([{ name: 'package.json (root)', manifest: JSON.parse(read('package.json')) }, ...workspacePackages()]
    .filter(({ name, manifest }) => name === 'package.json (root)' || manifest.private !== true)
    .map(({ name, manifest }) => [name, manifest.engines?.node])),
};

const planted = disagreements({ ...sources, workflows: { 'planted.yml': 'jobs:\n  t:\n    strategy:\n      matrix:\n        node: [18]\n' } });
if (!planted.some((line) => line.startsWith('planted.yml'))) {
  console.error('check-node-support: self-check: a planted workflow testing Node 18 only was not caught');
  process.exit(1);
}
const found = disagreements(sources);
for (const line of found) console.error(`check-node-support: ${line}`);
if (found.length > 0) process.exit(1);
console.log(`check-node-support: ${phrase([...new Set(sources.pinned.map((v) => v.split('.')[0]))])} (${sources.pinned.join(', ')}) agree everywhere`);
