/**
 * Where the suite runs: only on the Node of `.ci/node-versions`' first line (its major), so `.ci/run`,
 * which runs the tests once per Node it lists, runs the agents once. The agents are native binaries
 * (Codex's launcher runs on any supported Node), so one Node is enough; on the others the suite is
 * reported skipped with this reason. Nothing else (no variable, no failed fetch) skips it.
 */
import fs from 'node:fs';

const NODE_VERSIONS = new URL('../../../.ci/node-versions', import.meta.url);

/** The major the suite runs on: `.ci/node-versions`' first release. */
export function agentsNodeMajor(): number {
  const first = fs.readFileSync(NODE_VERSIONS, 'utf8').split('\n').map((line) => line.trim()).find((line) => line !== '' && !line.startsWith('#'));
  if (first === undefined) throw new Error('.ci/node-versions names no Node');
  return Number(first.split('.')[0]);
}

/** `undefined` when the suite runs on this Node, else why it does not. */
export function whyNotHere(nodeVersion = process.versions.node): string | undefined {
  const major = agentsNodeMajor();
  return Number(nodeVersion.split('.')[0]) === major ? undefined : `the agents run on Node ${major} only (.ci/node-versions' first line); this is Node ${nodeVersion}`;
}
