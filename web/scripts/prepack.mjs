// `npm pack` (prepack): the tarball ships web/pkg and web/pkg-preview as `npm run build` left
// them, so refuse to pack either when missing or older than the Rust it is compiled from (a
// stale module would check requests with other rules than the server's, or preview another
// camera than the renderer's). `scripts/run.sh` builds it when stale, so
// after run.sh `npm pack` alone is enough and the several-minute wasm build is not repeated.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { loadConfig, repoDir } from './config.mjs';

const config = loadConfig();
// Both modules, each with what it is compiled from (the validation module's list is the one
// scripts/run.sh watches for the form).
const common = [resolve(repoDir, 'Cargo.toml'), resolve(repoDir, 'Cargo.lock'), config.path];
const modules = [
  [config, [config.crate, resolve(repoDir, 'crates/stillreel-core'), ...common]],
  [config.preview, [config.preview.crate, ...['core', 'camera', 'effects'].map((c) => resolve(repoDir, `crates/stillreel-${c}`)), ...common]],
];

function* files(path) {
  if (!statSync(path).isDirectory()) {
    yield path;
    return;
  }
  for (const entry of readdirSync(path)) yield* files(join(path, entry));
}

for (const [m, sources] of modules) {
  const shipped = ['_bg.wasm', '.js', '.d.ts'].map((end) => resolve(m.outDir, `${m.outName}${end}`));
  const missing = shipped.find((f) => !existsSync(f));
  const built = missing ? 0 : Math.min(...shipped.map((f) => statSync(f).mtimeMs));
  const newer = missing ? undefined : sources.flatMap((s) => [...files(s)]).find((f) => statSync(f).mtimeMs > built);
  if (missing || newer) {
    const why = missing ? `${relative(repoDir, missing)} is missing` : `${relative(repoDir, newer)} changed after the last build`;
    console.error(`npm pack: ${why}: run \`npm run build\` in web/ first (scripts/run.sh does it when needed)`);
    process.exit(1);
  }
}
