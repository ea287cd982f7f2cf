// Benchmark: validating a 20-image create_video body in headless Chromium with the stillreel
// wasm module, beside ajv validating the same body against a JSON Schema of the rules JSON
// Schema can express (bench/wasm/schema.mjs). Needs `npm ci && npm run build` in web/.
// Usage: node bench/wasm.mjs [--runs 5] [--batches 200] [--per 200]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, '../web');
const require = createRequire(join(web, 'package.json'));
const { default: Ajv } = await import(require.resolve('ajv'));
const { default: standaloneCode } = await import(require.resolve('ajv/dist/standalone'));
const { serve } = await import(join(web, 'scripts/static-server.mjs'));
const { launch } = await import(join(web, 'scripts/browser.mjs'));
const { builtinTemplates } = await import(join(web, 'src/node.js'));
const { createVideoSchema, body20 } = await import('./wasm/schema.mjs');

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, batches: { type: 'string', default: '200' }, per: { type: 'string', default: '200' } } });

// ajv compiles the schema to a standalone ES module, so the page needs no bundler.
const ajv = new Ajv({ allErrors: true, code: { source: true, esm: true } });
const validate = ajv.compile(createVideoSchema(builtinTemplates()));
if (!validate(body20())) throw new Error(`the schema rejects the body: ${JSON.stringify(validate.errors)}`);
const code = standaloneCode(ajv, validate).replace(
  'require("ajv/dist/runtime/ucs2length").default',
  '((s) => { let n = 0; for (const _ of s) n++; return n; })',
);
if (code.includes('require(')) throw new Error('the standalone validator still requires a module');
const ajvDir = mkdtempSync(join(tmpdir(), 'stillreel-ajv-'));
writeFileSync(join(ajvDir, 'validate.mjs'), code);

const site = await serve({ '/': join(here, 'wasm'), '/web': web, '/ajv': ajvDir });
const browser = await launch();
const runs = [];
try {
  for (let run = 0; run < Number(values.runs); run++) {
    const page = await browser.newPage();
    page.on('pageerror', (e) => { throw e; });
    await page.goto(`${site.url}/index.html?batches=${values.batches}&per=${values.per}`);
    const result = await page.waitForFunction(() => window.benchResult, null, { timeout: 300000 }).then((h) => h.jsonValue());
    runs.push(result);
    console.log(`run ${run + 1}: wasm ${result.wasm_median_us.toFixed(2)} µs, with normalized read ${result.wasm_with_normalized_median_us.toFixed(2)} µs, ajv ${result.ajv_median_us.toFixed(2)} µs, ratio ${result.ratio.toFixed(2)} (${result.ratio_with_normalized.toFixed(2)}), JSON round trip ${result.json_round_trip_median_us.toFixed(2)} µs`);
    await page.close();
  }
} finally {
  await browser.close();
  await site.close();
  rmSync(ajvDir, { recursive: true, force: true });
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const summary = {
  runs: runs.length,
  iterations_per_run: runs[0].iterations,
  body_bytes: runs[0].body_bytes,
  wasm_median_us: median(runs.map((r) => r.wasm_median_us)),
  ajv_median_us: median(runs.map((r) => r.ajv_median_us)),
  ratio: median(runs.map((r) => r.ratio)),
  wasm_with_normalized_median_us: median(runs.map((r) => r.wasm_with_normalized_median_us)),
  ratio_with_normalized: median(runs.map((r) => r.ratio_with_normalized)),
  json_round_trip_median_us: median(runs.map((r) => r.json_round_trip_median_us)),
  browser: runs[0].user_agent,
};
console.log(JSON.stringify(summary, null, 2));
