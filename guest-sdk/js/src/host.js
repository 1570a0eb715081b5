// The host's imports (`weft:swf/log`, `weft:swf/heartbeat`, `weft:swf/replay`), handed in by
// the entry module that build.mjs generates. The SDK never imports `weft:*` modules itself, so
// that it also runs under plain node, where these stay unset: the log goes to stderr,
// heartbeats answer false, and the workflow core is loaded as a Wasm module (`core.js`).

/** @type {{write?: (level: string, message: string) => void, recordHeartbeat?: (details?: string) => boolean, replayCall?: (request: string) => string}} */
export const host = {};

/**
 * Hands the host's imports to the SDK. Called by the generated entry module only.
 *
 * @param {{write?: Function, recordHeartbeat?: Function}} imports
 */
export function setHost(imports) {
  Object.assign(host, imports);
}

function write(level, parts) {
  const message = parts.map((p) => (typeof p === 'string' ? p : String(p))).join(' ');
  if (host.write) host.write(level, message);
  else console.error(`[${level}] ${message}`);
}

/**
 * Messages to the host's log, tagged by the host with the guest's binding and task.
 *
 * @example
 * log.info(`${task.activityType.name} (${task.activityId})`);
 */
export const log = {
  /** @param {...unknown} parts joined with spaces */
  debug: (...parts) => write('debug', parts),
  /** @param {...unknown} parts */
  info: (...parts) => write('info', parts),
  /** @param {...unknown} parts */
  warn: (...parts) => write('warn', parts),
  /** @param {...unknown} parts */
  error: (...parts) => write('error', parts),
};

/**
 * Tells the service the activity task is alive, with optional progress details (at most 2,048
 * characters), which restarts its heartbeat timeout. Answers whether cancellation of the task
 * was requested: the worker should then stop and answer `Outcome.canceled(...)`. Outside a
 * component (unit tests) it does nothing and answers false.
 *
 * @param {string} [details]
 * @returns {boolean}
 */
export function heartbeat(details) {
  return host.recordHeartbeat ? host.recordHeartbeat(details) : false;
}

/**
 * What a decider throws for `error`, which fails its decision task: an Error's message (the
 * failure's reason), after logging its stack, which the host keeps as the failure's details, as
 * Python's traceback. A thrown string is the WIT `err` itself; anything else would trap.
 *
 * @param {unknown} error
 * @returns {string}
 */
export function decisionFailure(error) {
  if (error instanceof Error) {
    // V8's stack starts with `Name: message`; the guests' engine (SpiderMonkey) gives only the
    // frames, so the heading is added where it is missing.
    const heading = `${error.name}: ${error.message}`;
    const stack = sourceLines(error.stack ?? '');
    log.error(stack.startsWith(heading) ? stack : `${heading}\n${stack}`.trimEnd());
    return error.message;
  }
  return String(error);
}

/**
 * `text` (a stack, a message) with each place in the component's bundle (`bundle.js:LINE:COL`)
 * named by the source file and line it was built from: weft-js-build sets
 * `globalThis.__weftSourceLines` (source-lines.js `lineTable`). Outside a component, `text` as
 * it is.
 *
 * @param {string} text
 * @returns {string}
 */
export function sourceLines(text) {
  const table = globalThis.__weftSourceLines;
  if (!table) return text;
  return text.replace(/[\w./-]*bundle\.js:(\d+)(?::\d+)?/g, (place, line) => {
    const file = table.at[2 * (line - 1)];
    return file >= 0 ? `${table.files[file]}:${table.at[2 * (line - 1) + 1]}` : place;
  });
}
