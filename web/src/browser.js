// Browser entry (ES module): fetches and instantiates the .wasm next to the glue before the
// module finishes loading, so importers call the functions without an init step.
import init from '../pkg/stillreel_wasm.js';

await init({ module_or_path: new URL('../pkg/stillreel_wasm_bg.wasm', import.meta.url) });

export * from './exports.js';
