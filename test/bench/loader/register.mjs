/** `node --import ./test/bench/loader/register.mjs`: TypeScript compiled as the production build compiles it (build-hooks.mjs). */
import { register } from 'node:module';

process.setSourceMapsEnabled(true);
register('./build-hooks.mjs', import.meta.url);
