#!/usr/bin/env node
// scripts/setup.sh's view of native modules on the Node that runs it:
//   native-build.mjs nodedir  prints the headers prefix for node-gyp (empty: none of this Node here);
//   native-build.mjs check    exits 1, saying which, when a native module does not load;
//   native-build.mjs names    prints the native modules' names (what to rebuild).
import { nativeModuleNames, nativeModuleProblems, nodeHeadersDir } from './lib/native-build.mjs';

const command = process.argv[2];
if (command === 'nodedir') console.log(nodeHeadersDir() ?? '');
else if (command === 'names') console.log(nativeModuleNames().join(' '));
else if (command === 'check') {
  const problems = nativeModuleProblems();
  for (const problem of problems) console.error(`native-build: ${problem}`);
  process.exit(problems.length === 0 ? 0 : 1);
} else {
  console.error('usage: native-build.mjs nodedir|check|names');
  process.exit(2);
}
