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

import { createHash } from 'node:crypto';
import {
  appendFileSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync,
  statSync, writeFileSync,
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

// An engine's snapshot differs from build to build (its hash tables' seeds), so a component
// records what it was built from, in a custom section: a build from the same inputs keeps the
// file that is there, byte for byte, and `weft apply` then uploads and compiles nothing.

/** The custom section that names a component's inputs. */
const INPUTS_SECTION = 'weft-build-inputs';

/** The digest of what a component is built from: the bundle (the guest and the SDK), the
 * world and features, the toolchain and the WIT. */
function buildInputs(bundle, world, features, tools) {
  const hash = createHash('sha256').update(bundle).update(`\0${world}\0${features.join(',')}\0${tools}\0`);
  const wit = witDir();
  for (const file of readdirSync(wit).sort()) hash.update(file).update(readFileSync(join(wit, file)));
  return hash.digest('hex');
}

/** The inputs `component` records, if it does. */
function builtFrom(component) {
  let at = 8; // magic and version
  const leb = () => {
    let [value, shift] = [0, 0];
    for (;;) {
      const byte = component[at++];
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
      shift += 7;
    }
  };
  while (at < component.length) {
    const id = component[at++];
    const size = leb();
    const end = at + size;
    if (id === 0) {
      const length = leb();
      const name = component.subarray(at, at + length).toString();
      if (name === INPUTS_SECTION) return component.subarray(at + length, end).toString();
    }
    at = end;
  }
  return undefined;
}

/** `component` with a custom section recording `inputs`. */
function withInputs(component, inputs) {
  const leb = (n) => {
    const bytes = [];
    do {
      bytes.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
      n = Math.floor(n / 128);
    } while (n > 0);
    return Buffer.from(bytes);
  };
  const payload = Buffer.concat([leb(INPUTS_SECTION.length), Buffer.from(INPUTS_SECTION), Buffer.from(inputs)]);
  return Buffer.concat([Buffer.from(component), Buffer.from([0]), leb(payload.length), payload]);
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
      const contents = await transformAsync(source, relative(process.cwd(), path), join(sdk, 'workflow.js'));
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
    const bundle = join(work, 'bundle.js');
    await esbuild.build({
      // The entry by a fixed name, not the temporary directory's: the bundle names it.
      stdin: { contents: entryModule(args.world, entry), sourcefile: 'weft-entry.js', resolveDir: dirname(entry) },
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
    const inputs = buildInputs(readFileSync(bundle), args.world, disableFeatures, tools);
    if (existsSync(out) && builtFrom(readFileSync(out)) === inputs) {
      console.error(`build.mjs: ${args.world} ${args.out}: unchanged (built from these sources already)`);
      return;
    }
    const { component } = await componentize({
      sourcePath: bundle,
      witPath: witDir(),
      worldName: args.world,
      disableFeatures,
    });
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, withInputs(component, inputs));
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
