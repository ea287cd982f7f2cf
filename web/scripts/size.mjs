// Size of what a browser downloads for validation (the .wasm, the wasm-bindgen glue and the
// wrapper) and, separately, for the preview (its .wasm, glue and src/preview.js), raw and
// gzipped (level 9). Fails when either is above its budget in /wasm-pack.toml.
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
  return sizes(files);
}

/** The preview module's files: fetched only when a page first asks for a preview. */
export function measurePreview(config = loadConfig()) {
  const p = config.preview;
  return sizes([
    resolve(p.outDir, `${p.outName}_bg.wasm`),
    resolve(p.outDir, `${p.outName}.js`),
    resolve(webDir, 'src/preview.js'),
    ...snippets(p.outDir),
  ]);
}

function sizes(files) {
  const rows = files.map((file) => {
    const bytes = readFileSync(file);
    return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const total = rows.reduce((t, r) => ({ raw: t.raw + r.raw, gzip: t.gzip + r.gzip }), { raw: 0, gzip: 0 });
  return { rows, total };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const config = loadConfig();
  const kib = (n) => (n / 1024).toFixed(1);
  let over = false;
  for (const [name, { rows, total }, budget] of [
    ['validation', measure(config), config.maxGzipKiB],
    ['preview', measurePreview(config), config.preview.maxGzipKiB],
  ]) {
    console.log(`${name}:`);
    for (const r of rows) console.log(`${kib(r.raw).padStart(8)} KiB raw ${kib(r.gzip).padStart(7)} KiB gzip  ${r.file}`);
    console.log(`${kib(total.raw).padStart(8)} KiB raw ${kib(total.gzip).padStart(7)} KiB gzip  total (budget ${budget} KiB gzip)`);
    if (total.gzip > budget * 1024) {
      console.error(`size: ${name} over budget: ${kib(total.gzip)} KiB > ${budget} KiB gzipped`);
      over = true;
    }
  }
  if (over) process.exit(1);
}
