#!/usr/bin/env node
// Builds a JavaScript guest into a WebAssembly component of one `weft:swf` world:
//
//   node guest-sdk/js/build.mjs --world decider|activity-worker|function <entry.js> -o <out.wasm>
//
// The entry module's default export is the guest (`decider(fn)`, an `ActivityWorker`, or
// `fn(...)`). This script generates the component's real entry module, which imports the host's
// functions, hands them to the SDK and exports the world's function; bundles it with the guest
// and the SDK into one ES module (esbuild); and runs ComponentizeJS on it with the `weft:swf` WIT
// (the package's `wit/` once packed, the checkout's `wit/` before). On first use it installs the
// pinned tools (`toolchain/package-lock.json`) with `npm ci` into the user's cache
// ($WEFT_GUEST_TOOLCHAINS, else $XDG_CACHE_HOME/weft/toolchains, else ~/.cache/weft/toolchains),
// so node and npm are all a machine needs, and nothing is written beside this file.
//
// Options: --enable FEATURE / --disable FEATURE (repeatable) adjust the ComponentizeJS features
// turned off (default: http, fetch-event, stdio; see README.md for what each imports);
// --keep-bundle keeps the bundled JS next to the output, to read what was componentized.

import {
  appendFileSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { lineTable } from './src/source-lines.js';
import { ensureToolchain, importFrom } from './src/toolchain.js';
import { transformAsync } from './src/transform.js';

const here = dirname(fileURLToPath(import.meta.url));
const FEATURES = ['stdio', 'random', 'clocks', 'http', 'fetch-event'];
const DEFAULT_DISABLED = ['http', 'fetch-event', 'stdio'];

/** What each world's entry imports from the host and exports. */
const WORLDS = {
  decider: { imports: ['write', 'replayCall'], export: 'decide' },
  'activity-worker': { imports: ['write', 'recordHeartbeat'], export: 'run' },
  function: { imports: ['write'], export: 'invoke' },
};
const IMPORT_FROM = {
  write: ['write', 'weft:swf/log@0.1.0'],
  recordHeartbeat: ['recordHeartbeat', 'weft:swf/heartbeat@0.1.0'],
  replayCall: ['call', 'weft:swf/replay@0.1.0'],
};

function usage(message) {
  if (message) console.error(`build.mjs: ${message}`);
  console.error('usage: weft-js-build --world decider|activity-worker|function <entry.js> -o <out.wasm>\n' +
    `       [--enable FEATURE] [--disable FEATURE] [--keep-bundle]   (features: ${FEATURES.join(', ')})`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { disabled: new Set(DEFAULT_DISABLED), keepBundle: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => argv[++i] ?? usage(`${a} needs a value`);
    if (a === '--world') args.world = value();
    else if (a === '-o' || a === '--out') args.out = value();
    else if (a === '--enable' || a === '--disable') {
      const f = value();
      if (!FEATURES.includes(f)) usage(`unknown feature ${f}`);
      if (a === '--enable') args.disabled.delete(f);
      else args.disabled.add(f);
    } else if (a === '--keep-bundle') args.keepBundle = true;
    else if (a === '-h' || a === '--help') usage();
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (args.entry) usage(`one entry only (got ${args.entry} and ${a})`);
    else args.entry = a;
  }
  if (!WORLDS[args.world]) usage('--world must be decider, activity-worker or function');
  if (!args.entry || !args.out) usage('an entry and -o are needed');
  return args;
}

/** The `weft:swf` WIT: the package's own copy once packed, else the checkout's `wit/`. */
function witDir() {
  for (const dir of [join(here, 'wit'), resolve(here, '../../wit')]) {
    if (existsSync(join(dir, 'worlds.wit'))) return dir;
  }
  usage(`no WIT in ${join(here, 'wit')}: reinstall @weft/guest`);
}

/** The component's entry module: host imports in, the world's export out. */
function entryModule(world, guestPath) {
  const { imports, export: name } = WORLDS[world];
  const lines = imports.map((f) => `import { ${IMPORT_FROM[f][0]} as ${f} } from '${IMPORT_FROM[f][1]}';`);
  lines.push(
    `import { setHost } from ${JSON.stringify(join(here, 'src/host.js'))};`,
    `import guest from ${JSON.stringify(guestPath)};`,
    `setHost({ ${imports.join(', ')} });`,
    `if (typeof guest?.${name} !== 'function') throw new Error('the default export of the guest has no ${name}: export default ${world === 'decider' ? 'decider(fn)' : world === 'function' ? 'fn(f)' : 'an ActivityWorker'}');`,
    `export function ${name}(arg) { return guest.${name}(arg); }`,
  );
  return lines.join('\n') + '\n';
}

/** Compiles the async functions of the guest's own modules for workflows (src/transform.js). */
const asyncFunctions = {
  name: 'weft-async-functions',
  setup(build) {
    const sdk = join(here, 'src');
    build.onLoad({ filter: /\.m?js$/ }, async ({ path }) => {
      if (path.startsWith(sdk) || path.includes('/node_modules/')) return undefined;
      const source = readFileSync(path, 'utf8');
      if (!source.includes('async')) return undefined;
      const contents = await transformAsync(source, relative(process.cwd(), path), join(sdk, 'async.js'));
      return contents === undefined ? undefined : { contents, loader: 'js' };
    });
  },
};

async function main() {
  if (process.argv[2] === '--copy-wit') {
    // `npm pack` (prepack): the package carries the WIT it builds against, and the workflow
    // core its unit tests run on (in a component, the host composes the core).
    cpSync(resolve(here, '../../wit'), join(here, 'wit'), { recursive: true });
    cpSync(resolve(here, '../../examples/artifacts/prebuilt/workflow-core.wasm'), join(here, 'src/workflow-core.wasm'));
    return;
  }
  const args = parseArgs(process.argv.slice(2));
  const entry = resolve(args.entry);
  const out = resolve(args.out);
  if (!existsSync(entry)) usage(`no such file: ${args.entry}`);
  const tools = ensureToolchain();
  const { default: esbuild } = await importFrom(tools, 'esbuild');
  const { componentize } = await importFrom(tools, '@bytecodealliance/componentize-js');

  const work = mkdtempSync(join(tmpdir(), 'weft-js-'));
  try {
    const started = Date.now();
    const main = join(work, 'main.js');
    writeFileSync(main, entryModule(args.world, entry));
    const bundle = join(work, 'bundle.js');
    await esbuild.build({
      entryPoints: [main],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      external: ['weft:*', 'wasi:*'],
      outfile: bundle,
      sourcemap: 'external',
      plugins: [asyncFunctions],
      logLevel: 'warning',
    });
    // The source map, as a table of lines the SDK reads back when it names a failure's place.
    const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8'));
    const table = lineTable(map, (source) => relative(process.cwd(), resolve(work, source)));
    appendFileSync(bundle, `\nglobalThis.__weftSourceLines = ${JSON.stringify(table)};\n`);
    const disableFeatures = [...args.disabled];
    const { component } = await componentize({
      sourcePath: bundle,
      witPath: witDir(),
      worldName: args.world,
      disableFeatures,
    });
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, component);
    if (args.keepBundle) copyFileSync(bundle, out.replace(/\.wasm$/, '') + '.bundle.js');
    const mib = (statSync(out).size / 2 ** 20).toFixed(1);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    console.error(`build.mjs: ${args.world} ${args.out}: ${mib} MiB in ${secs} s ` +
      `(features disabled: ${disableFeatures.join(', ') || 'none'})`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`build.mjs: ${e?.stack ?? e}`);
  process.exit(1);
});
