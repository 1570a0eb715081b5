// `node --import @weft/guest/register --test`: the tests' own modules are loaded with their async
// functions compiled as weft-js-build compiles them for a component (transform.js), so that a
// workflow written as an async function runs in tests as it runs in Weft.

import { register } from 'node:module';

register('./hooks.js', import.meta.url);
