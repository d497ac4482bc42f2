// The workspace's packages, read from pnpm-workspace.yaml, so every script that walks packages
// (package checks, release packing, the CI matrix) picks a new package up without being edited.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The `packages:` globs of pnpm-workspace.yaml; only `dir/*` forms are used here, anything else is refused. */
function workspaceGlobs() {
  const text = fs.readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8');
  const block = text.match(/^packages:\n((?:[ \t]+-.*\n?)+)/m);
  if (!block) throw new Error('pnpm-workspace.yaml: no packages list');
  return block[1].split('\n').filter(Boolean).map((line) => {
    const glob = line.replace(/^\s*-\s*/, '').replace(/^['"]|['"]$/g, '');
    if (!/^[\w.-]+\/\*$/.test(glob)) throw new Error(`pnpm-workspace.yaml: unsupported glob ${glob}`);
    return glob.slice(0, -2);
  });
}

/** Every workspace package: `{ name, dir (relative to the root), manifest }`, sorted by dir. */
export function workspacePackages() {
  return workspaceGlobs()
    .flatMap((parent) =>
      fs.readdirSync(path.join(root, parent), { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(root, parent, entry.name, 'package.json')))
        .map((entry) => `${parent}/${entry.name}`),
    )
    .sort()
    .map((dir) => {
      const manifest = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
      return { name: manifest.name, dir, manifest };
    });
}

/** The packages published to the registry: every workspace package not marked private. */
export function publicPackages() {
  return workspacePackages().filter((pkg) => pkg.manifest.private !== true);
}

/** The packages with a `test` script: one CI job each, one line each in the local summary. */
export function testedPackages() {
  return workspacePackages().filter((pkg) => typeof pkg.manifest.scripts?.test === 'string');
}
