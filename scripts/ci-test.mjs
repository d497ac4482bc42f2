#!/usr/bin/env node
// `.ci/run`'s test step: every package's tests through turbo (two at a time, continuing past a
// failure so every package gets a verdict), then one summary line per package, as the CI matrix
// shows one job per package. Exits non-zero when any package failed or got no verdict. The Node
// version is part of turbo's task hash (PGW_TEST_NODE), so a run on another Node never replays the
// cached verdicts of this one.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, testedPackages } from './lib/workspace.mjs';

const runsDir = path.join(root, '.turbo/runs');
const before = new Set(fs.existsSync(runsDir) ? fs.readdirSync(runsDir) : []);
const turbo = spawnSync('pnpm', ['exec', 'turbo', 'run', 'test', '--concurrency=2', '--continue', '--summarize'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', PGW_TEST_NODE: process.version },
});

const summaryFile = fs.existsSync(runsDir) ? fs.readdirSync(runsDir).find((file) => !before.has(file)) : undefined;
const tasks = summaryFile === undefined ? [] : JSON.parse(fs.readFileSync(path.join(runsDir, summaryFile), 'utf8')).tasks;
if (summaryFile !== undefined) fs.rmSync(path.join(runsDir, summaryFile));

let failed = turbo.status !== 0;
const failures = [];
console.log(`\nper-package tests (node ${process.version}):`);
for (const { name, dir } of testedPackages()) {
  const task = tasks.find((t) => t.package === name && t.task === 'test');
  const exitCode = task?.execution?.exitCode;
  const verdict = exitCode === 0 ? 'pass' : exitCode === undefined ? 'none' : 'FAIL';
  if (verdict !== 'pass') failed = true;
  const seconds = task?.execution ? ((task.execution.endTime - task.execution.startTime) / 1000).toFixed(1) : '-';
  const cached = task?.cache?.status === 'HIT' ? ' (cached)' : '';
  console.log(`  ${verdict.padEnd(4)}  ${name.padEnd(26)} ${seconds.padStart(6)} s${cached}`);
  if (verdict === 'FAIL') failures.push(...failureDigest(dir, name));
}
// The failed tests and their first error lines, again at the end: a long run's log is often read from its tail.
if (failures.length > 0) {
  const digest = `failed tests (node ${process.version}):\n${failures.join('\n')}\n`;
  console.log(`\n${digest}`);
  // .ci/run prints every Node's digest once more beside its verdicts.
  if (process.env.PGW_CI_FAILURES) fs.appendFileSync(process.env.PGW_CI_FAILURES, digest);
}
process.exit(failed ? 1 : 0);

/** From the task's log turbo keeps: vitest's "FAIL" headers, each with the lines of its error that follow. */
function failureDigest(dir, name) {
  const log = path.join(root, dir, '.turbo/turbo-test.log');
  if (!fs.existsSync(log)) return [`  ${name}: no log`];
  const lines = fs.readFileSync(log, 'utf8').replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((line) => line.replace(/^\S+:test: /, ''));
  const digest = [];
  lines.forEach((line, at) => {
    if (!/^\s*FAIL\s/.test(line)) return;
    digest.push(`  ${name}: ${line.trim()}`);
    for (const next of lines.slice(at + 1, at + 4)) if (next.trim() !== '') digest.push(`      ${next.trim().slice(0, 200)}`);
  });
  return digest.length > 0 ? digest : [`  ${name}: no FAIL line in ${path.relative(root, log)}`];
}
