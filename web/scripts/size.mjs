// Size of what a browser downloads for validation: the .wasm, the wasm-bindgen glue and the
// wrapper, raw and gzipped (level 9). Fails above the budget in /wasm-pack.toml.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadConfig, webDir } from './config.mjs';

/** The JS snippets wasm-bindgen writes for `inline_js` (pkg/snippets/<crate>-<hash>/). */
function snippets(outDir) {
  const dir = resolve(outDir, 'snippets');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .filter((name) => name.endsWith('.js'))
    .map((name) => resolve(dir, name));
}

export function measure(config = loadConfig()) {
  const files = [
    resolve(config.outDir, `${config.outName}_bg.wasm`),
    resolve(config.outDir, `${config.outName}.js`),
    resolve(webDir, 'src/browser.js'),
    resolve(webDir, 'src/exports.js'),
    resolve(webDir, 'src/helpers.js'),
    resolve(webDir, 'src/client.js'),
    ...snippets(config.outDir),
  ];
  const rows = files.map((file) => {
    const bytes = readFileSync(file);
    return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const total = rows.reduce((t, r) => ({ raw: t.raw + r.raw, gzip: t.gzip + r.gzip }), { raw: 0, gzip: 0 });
  return { rows, total };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const config = loadConfig();
  const { rows, total } = measure(config);
  const kib = (n) => (n / 1024).toFixed(1);
  for (const r of rows) console.log(`${kib(r.raw).padStart(8)} KiB raw ${kib(r.gzip).padStart(7)} KiB gzip  ${r.file}`);
  console.log(`${kib(total.raw).padStart(8)} KiB raw ${kib(total.gzip).padStart(7)} KiB gzip  total (budget ${config.maxGzipKiB} KiB gzip)`);
  if (total.gzip > config.maxGzipKiB * 1024) {
    console.error(`size: over budget: ${kib(total.gzip)} KiB > ${config.maxGzipKiB} KiB gzipped`);
    process.exit(1);
  }
}
