#!/usr/bin/env node
// Checks that every public workspace package can be published as it stands: registry metadata,
// exports for consumers without the workspace's source condition, a build, no runtime dependency on
// a private package. Runs in `pnpm lint`; walks the workspace, so a new package is checked too.
// Then proves each rule can fire by breaking a copy of a real manifest one rule at a time. Last, every
// changeset names public workspace packages only (`changeset version` refuses one that also names a
// private, ignored package), proven on a changeset that names a private and an unknown one.
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { root, workspacePackages } from './lib/workspace.mjs';

const SOURCE_CONDITION = '@pgw/source';

function withoutSourceCondition(exportsMap) {
  return Object.fromEntries(
    Object.entries(exportsMap ?? {}).map(([subpath, conditions]) => [
      subpath,
      Object.fromEntries(Object.entries(conditions).filter(([condition]) => condition !== SOURCE_CONDITION)),
    ]),
  );
}

/** Each rule: a name and a predicate over `{ manifest, dir, files, privateNames, rootEngines }` that is true when it holds. */
const rules = [
  ['license', ({ manifest }) => typeof manifest.license === 'string' && manifest.license !== ''],
  ['keywords', ({ manifest }) => Array.isArray(manifest.keywords) && manifest.keywords.length > 0],
  ['repository.directory', ({ manifest, dir }) => typeof manifest.repository?.url === 'string' && manifest.repository.directory === dir],
  ['engines.node same as the root', ({ manifest, rootEngines }) => manifest.engines?.node === rootEngines.node],
  ['sideEffects false', ({ manifest }) => manifest.sideEffects === false],
  ['files ships dist', ({ manifest }) => Array.isArray(manifest.files) && manifest.files.includes('dist')],
  ['exports carry the source condition', ({ manifest }) =>
    manifest.exports !== undefined && Object.values(manifest.exports).every((conditions) => SOURCE_CONDITION in conditions)],
  ['publishConfig.access public', ({ manifest }) => manifest.publishConfig?.access === 'public'],
  ['publishConfig.exports = exports without the source condition', ({ manifest }) =>
    isDeepStrictEqual(manifest.publishConfig?.exports, withoutSourceCondition(manifest.exports))],
  ['build script and tsconfig.build.json', ({ manifest, files }) => typeof manifest.scripts?.build === 'string' && files.has('tsconfig.build.json')],
  ['README.md', ({ files }) => files.has('README.md')],
  ['no runtime dependency on a private package', ({ manifest, privateNames }) =>
    [manifest.dependencies, manifest.peerDependencies].every((deps) => Object.keys(deps ?? {}).every((name) => !privateNames.has(name)))],
];

function problemsOf(subject) {
  return rules.filter(([, holds]) => !holds(subject)).map(([name]) => name);
}

const all = workspacePackages();
const privateNames = new Set(all.filter((pkg) => pkg.manifest.private === true).map((pkg) => pkg.name));
const rootEngines = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines;
const subjects = all
  .filter((pkg) => pkg.manifest.private !== true)
  .map(({ manifest, dir }) => ({ manifest, dir, files: new Set(fs.readdirSync(path.join(root, dir))), privateNames, rootEngines }));

let failed = false;
for (const subject of subjects) {
  for (const problem of problemsOf(subject)) {
    console.error(`check-packages: ${subject.dir}/package.json: ${problem}`);
    failed = true;
  }
}

// Self-check: each rule must fire on a copy of a real subject broken for it alone.
const sample = subjects[0];
const breakers = {
  license: (m) => delete m.license,
  keywords: (m) => (m.keywords = []),
  'repository.directory': (m) => (m.repository = { ...m.repository, directory: 'elsewhere' }),
  'engines.node same as the root': (m) => (m.engines = { node: '>=18' }),
  'sideEffects false': (m) => delete m.sideEffects,
  'files ships dist': (m) => (m.files = ['src']),
  'exports carry the source condition': (m) => (m.exports = withoutSourceCondition(m.exports)),
  'publishConfig.access public': (m) => (m.publishConfig = { ...m.publishConfig, access: 'restricted' }),
  'publishConfig.exports = exports without the source condition': (m) => (m.publishConfig = { ...m.publishConfig, exports: m.exports }),
  'build script and tsconfig.build.json': (m) => (m.scripts = { ...m.scripts, build: undefined }),
  'README.md': (m, files) => files.delete('README.md'),
  'no runtime dependency on a private package': (m) => (m.dependencies = { ...m.dependencies, [[...privateNames][0]]: 'workspace:*' }),
};
for (const [name] of rules) {
  const subject = { ...sample, manifest: structuredClone(sample.manifest), files: new Set(sample.files) };
  breakers[name](subject.manifest, subject.files);
  if (!problemsOf(subject).includes(name)) {
    console.error(`check-packages: self-check: rule "${name}" did not fire on a manifest broken for it`);
    failed = true;
  }
}

const publicNames = new Set(all.filter((pkg) => pkg.manifest.private !== true).map((pkg) => pkg.name));
/** The packages a changeset's front matter names that are not public workspace packages. */
function strayNames(text) {
  const front = /^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? '';
  return [...front.matchAll(/^"([^"]+)":/gm)].map((match) => match[1]).filter((name) => !publicNames.has(name));
}
const changesetDir = path.join(root, '.changeset');
const changesets = fs.readdirSync(changesetDir).filter((name) => name.endsWith('.md') && name !== 'README.md');
for (const name of changesets) {
  const stray = strayNames(fs.readFileSync(path.join(changesetDir, name), 'utf8'));
  if (stray.length > 0) {
    console.error(`check-packages: .changeset/${name} names ${stray.join(', ')}, not a public workspace package`);
    failed = true;
  }
}
const planted = `---\n"${[...publicNames][0]}": patch\n"${[...privateNames][0]}": patch\n"@pgw/no-such-package": patch\n---\n\nText.\n`;
if (strayNames(planted).join() !== `${[...privateNames][0]},@pgw/no-such-package`) {
  console.error('check-packages: self-check: a changeset naming a private and an unknown package was not caught');
  failed = true;
}

if (failed) process.exit(1);
console.log(`check-packages: ${subjects.length} public packages publishable; ${rules.length} rules proven to fire; ${changesets.length} changesets name public packages only`);
