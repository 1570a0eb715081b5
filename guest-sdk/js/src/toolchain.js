// The pinned build tools (`toolchain/package-lock.json`: ComponentizeJS, jco, esbuild, acorn),
// installed with `npm ci` into the user's cache on first use ($WEFT_GUEST_TOOLCHAINS, else
// $XDG_CACHE_HOME/weft/toolchains, else ~/.cache/weft/toolchains), so that node and npm are all
// a machine needs and nothing is written into the package.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The package's root. */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The cache directory `name` of the toolchains. */
export function cached(name) {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const tools = process.env.WEFT_GUEST_TOOLCHAINS || join(cache, 'weft', 'toolchains');
  return join(tools, name);
}

/** Where the pinned toolchain lives: named by its lockfile, so a new pin installs afresh. */
export function toolchainDir() {
  const lock = readFileSync(join(root, 'toolchain/package-lock.json'));
  const pin = createHash('sha256').update(lock).digest('hex').slice(0, 12);
  return cached(`componentize-js-${pin}`);
}

/** Installs the pinned toolchain on first use. */
export function ensureToolchain() {
  return installOnce(toolchainDir(), 'the JavaScript toolchain', (staging) => {
    for (const file of ['package.json', 'package-lock.json']) {
      copyFileSync(join(root, 'toolchain', file), join(staging, file));
    }
    return ['ci'];
  });
}

/**
 * `dir`, installed on first use by npm with the arguments `prepare(staging)` answers, run in a
 * staging directory; concurrent first uses each install into a directory of their own, renamed
 * into place.
 *
 * @param {string} dir
 * @param {string} what what is installed, for the line that says so
 * @param {(staging: string) => string[]} prepare
 */
export function installOnce(dir, what, prepare) {
  if (existsSync(join(dir, '.installed'))) return dir;
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.staging-`);
  console.error(`weft: installing ${what} into ${dir} (npm)...`);
  try {
    const args = [...prepare(staging), '--no-audit', '--no-fund', '--loglevel=error'];
    // stdout is the caller's (a test runner's protocol, a build's output): npm's goes to stderr.
    execFileSync('npm', args, { cwd: staging, stdio: ['ignore', 2, 2] });
    writeFileSync(join(staging, '.installed'), '');
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(staging, dir);
    } catch (e) {
      if (!existsSync(join(dir, '.installed'))) throw e; // Another install finished meanwhile.
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/** Imports package `name` from the toolchain in `dir`, by its package.json's ES entry. */
export async function importFrom(dir, name) {
  const pkgRoot = join(dir, 'node_modules', name);
  const pkg = JSON.parse(readFileSync(join(pkgRoot, 'package.json'), 'utf8'));
  const exported = typeof pkg.exports === 'string' ? pkg.exports : esEntry(pkg.exports?.['.'] ?? pkg.exports);
  return import(pathToFileURL(join(pkgRoot, exported ?? pkg.module ?? pkg.main ?? 'index.js')).href);
}

/** The ES module entry of a package.json `exports` condition map. */
function esEntry(conditions) {
  if (typeof conditions === 'string' || conditions === undefined) return conditions;
  return esEntry(conditions.import ?? conditions.default);
}
