// The module hooks `register.js` installs: the project's own ES modules (not its dependencies)
// with their async functions compiled for workflows.

import { fileURLToPath } from 'node:url';
import { transformAsync } from './transform.js';

/** The SDK's own modules, left as they are. */
const SDK = new URL('./', import.meta.url).href;

/** @type {import('node:module').LoadHook} */
export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  const own = url.startsWith('file:') && !url.startsWith(SDK) && !/\/node_modules\//.test(url);
  if (loaded.format !== 'module' || !own) return loaded;
  const source = String(loaded.source);
  if (!source.includes('async')) return loaded;
  const transformed = await transformAsync(source, fileURLToPath(url));
  return transformed === undefined ? loaded : { ...loaded, source: transformed };
}
