// The workflow core (`guest-sdk/core`, WIT `weft:swf/replay`): one function taking and
// answering JSON, which replays workflow code (`weft_workflow_core::replay::json` lists its
// requests). In a component it is the host's import, handed in by the entry module that
// build.mjs generates (the host composes the core into the decider); under node, the SDK loads
// the same core as a Wasm module, so that unit tests need no server.

import { host } from './host.js';

const CALL = 'weft:swf/replay@0.1.0#call';
const POST = `cabi_post_${CALL}`;

let call;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Answers `request` (`{op, ...}`) with the core's `ok` value; its `err` thrown as an Error, or
 * as a `nondeterminism` (the class given) where the code contradicts the history.
 *
 * @param {object} request
 * @param {new (message: string) => Error} [nondeterminism]
 */
export function ask(request, nondeterminism = Error) {
  call ??= host.replayCall ?? moduleCall();
  const answer = JSON.parse(decoder.decode(call(encoder.encode(JSON.stringify(request)))));
  if ('err' in answer) throw new (answer.nondeterminism ? nondeterminism : Error)(answer.err);
  return answer.ok;
}

/** The core as a Wasm module, under node: the file beside this one once packed, else the
 * checkout's prebuilt one. */
function moduleCall() {
  const fs = globalThis.process?.getBuiltinModule?.('node:fs');
  if (!fs) throw new Error('no workflow core: outside a component, the SDK needs node 20.16 or later');
  const places = ['./workflow-core.wasm', '../../../examples/artifacts/prebuilt/workflow-core.wasm'];
  const file = places.map((p) => new URL(p, import.meta.url)).find((url) => fs.existsSync(url));
  if (!file) throw new Error(`no workflow core at ${places.join(' or ')} beside ${import.meta.url}`);
  const { exports } = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(file)), {});
  return (bytes) => {
    const at = exports.cabi_realloc(0, 0, 1, bytes.length);
    new Uint8Array(exports.memory.buffer, at, bytes.length).set(bytes);
    const area = exports[CALL](at, bytes.length);
    const [pointer, length] = new Uint32Array(exports.memory.buffer, area, 2);
    const answer = new Uint8Array(exports.memory.buffer, pointer, length).slice();
    exports[POST](area);
    return answer;
  };
}
