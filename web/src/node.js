// Node entry: reads the .wasm from the package with `fs` and instantiates it synchronously,
// so `import { validateCreateVideo } from 'stillreel'` works with no bundler and no init step.
import { readFileSync } from 'node:fs';
import { initSync } from '../pkg/stillreel_wasm.js';

initSync({ module: readFileSync(new URL('../pkg/stillreel_wasm_bg.wasm', import.meta.url)) });

export * from './exports.js';
