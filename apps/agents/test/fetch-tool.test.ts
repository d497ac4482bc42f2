/** Where `importLibrary` finds a module of a fetched install: the ESM entry its package's exports map names. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esmEntry } from '../src/fetch-tool.js';

describe('esmEntry', () => {
  let nodeModules: string;
  beforeAll(async () => {
    nodeModules = await fs.mkdtemp(path.join(os.tmpdir(), 'pgw-esm-entry-'));
    const manifest = async (name: string, exports: unknown) => {
      await fs.mkdir(path.join(nodeModules, name), { recursive: true });
      await fs.writeFile(path.join(nodeModules, name, 'package.json'), JSON.stringify({ name, exports }));
    };
    await manifest('plain', { '.': { require: './index.cjs', import: './index.mjs' } });
    await manifest('@scope/lib', { '.': { import: { types: './dist/index.d.ts', default: './dist/index.js' } }, './messages': { import: { default: './dist/messages/index.js' } } });
  });
  afterAll(() => fs.rm(nodeModules, { recursive: true, force: true }));

  it("takes a package's `.` entry, written as a path or as conditions", async () => {
    expect(await esmEntry(nodeModules, 'plain')).toBe(path.join(nodeModules, 'plain', 'index.mjs'));
    expect(await esmEntry(nodeModules, '@scope/lib')).toBe(path.join(nodeModules, '@scope/lib', 'dist/index.js'));
  });

  it('takes the subpath a specifier names', async () => {
    expect(await esmEntry(nodeModules, '@scope/lib/messages')).toBe(path.join(nodeModules, '@scope/lib', 'dist/messages/index.js'));
  });

  it('names the subpath the exports map lacks', async () => {
    await expect(esmEntry(nodeModules, '@scope/lib/tools')).rejects.toThrow("@scope/lib/tools: its package's exports map has no ESM entry for ./tools");
    await expect(esmEntry(nodeModules, 'plain/messages')).rejects.toThrow('./messages');
  });
});
