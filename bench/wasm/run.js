// Runs in Chromium: validates the same 20-image body with the wasm module and with ajv's
// compiled validator, in alternating batches, and reports per-call medians.
import { validateCreateVideo } from '/web/src/browser.js';
import ajvValidate from '/ajv/validate.mjs';
import { body20 } from './schema.mjs';

const params = new URLSearchParams(location.search);
const BATCHES = Number(params.get('batches') ?? 200);
const PER_BATCH = Number(params.get('per') ?? 200);
const body = body20();

function timeBatch(fn) {
  const start = performance.now();
  for (let i = 0; i < PER_BATCH; i++) fn();
  return ((performance.now() - start) * 1000) / PER_BATCH; // µs per call
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };

// What a form does on every keystroke: validate, read ok and errors.
const wasm = () => { if (!validateCreateVideo(body).ok) throw new Error('wasm rejected the body'); };
// What it does at submit: also read the normalized body (JSON.parse of its text happens here).
const wasmNormalized = () => { if (validateCreateVideo(body).normalized.image_inputs.length !== 20) throw new Error('wasm lost images'); };
const ajv = () => { if (!ajvValidate(body)) throw new Error(`ajv rejected the body: ${JSON.stringify(ajvValidate.errors)}`); };
wasm(); wasmNormalized(); ajv();
for (let i = 0; i < 2000; i++) { wasm(); wasmNormalized(); ajv(); } // warm up the JITs

// The floor of any design that hands the body over as JSON text and the result back the same
// way: stringify the body, parse a text of the same size.
const text = JSON.stringify(body);
const roundTrip = () => JSON.parse(JSON.stringify(body) && text);

const w = []; const n = []; const a = []; const j = [];
for (let b = 0; b < BATCHES; b++) {
  if (b % 2) { w.push(timeBatch(wasm)); a.push(timeBatch(ajv)); } else { a.push(timeBatch(ajv)); w.push(timeBatch(wasm)); }
  if (b % 2 === 0) n.push(timeBatch(wasmNormalized));
  if (b % 4 === 0) j.push(timeBatch(roundTrip));
}
const result = {
  iterations: BATCHES * PER_BATCH,
  wasm_median_us: median(w),
  wasm_with_normalized_median_us: median(n),
  ajv_median_us: median(a),
  json_round_trip_median_us: median(j),
  wasm_p90_us: [...w].sort((x, y) => x - y)[Math.floor(w.length * 0.9)],
  ajv_p90_us: [...a].sort((x, y) => x - y)[Math.floor(a.length * 0.9)],
  body_bytes: JSON.stringify(body).length,
  user_agent: navigator.userAgent,
};
result.ratio = result.wasm_median_us / result.ajv_median_us;
result.ratio_with_normalized = result.wasm_with_normalized_median_us / result.ajv_median_us;
window.benchResult = result;
document.getElementById('out').textContent = JSON.stringify(result, null, 2);
