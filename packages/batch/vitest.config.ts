import { readFileSync } from 'node:fs';
import { packageTestConfig } from '../../vitest.shared.ts';

// The fleet test runs for more than a minute (an RPM window): once per CI run, on the first Node of
// .ci/node-versions, and not collected on the others (so nothing is reported skipped there).
const firstMajor = readFileSync(new URL('../../.ci/node-versions', import.meta.url), 'utf8')
  .split('\n')
  .find((line) => /^\d/.test(line))
  ?.split('.')[0];
const fleetHere = process.versions.node.split('.')[0] === firstMajor;
if (!fleetHere) console.log(`@pgw/batch: the fleet test runs on Node ${firstMajor} only (.ci/node-versions' first line)`);

export default packageTestConfig({ testTimeout: 30_000, exclude: fleetHere ? [] : ['test/fleet/fleet.test.ts'] });
