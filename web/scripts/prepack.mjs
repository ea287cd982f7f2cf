// `npm pack` (prepack): the tarball ships web/pkg as `npm run build` left it, so refuse to pack
// one that is missing or older than the Rust it is compiled from (a stale module would check
// requests with other rules than the server's). `scripts/run.sh` builds it when stale, so
// after run.sh `npm pack` alone is enough and the several-minute wasm build is not repeated.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { loadConfig, repoDir } from './config.mjs';

const config = loadConfig();
const shipped = ['_bg.wasm', '.js', '.d.ts'].map((end) => resolve(config.outDir, `${config.outName}${end}`));
// What the module is built from: the same list scripts/run.sh watches for the form.
const sources = [config.crate, resolve(repoDir, 'crates/stillreel-core'), resolve(repoDir, 'Cargo.toml'),
  resolve(repoDir, 'Cargo.lock'), config.path];

function* files(path) {
  if (!statSync(path).isDirectory()) {
    yield path;
    return;
  }
  for (const entry of readdirSync(path)) yield* files(join(path, entry));
}

const missing = shipped.find((f) => !existsSync(f));
const built = missing ? 0 : Math.min(...shipped.map((f) => statSync(f).mtimeMs));
const newer = missing ? undefined : sources.flatMap((s) => [...files(s)]).find((f) => statSync(f).mtimeMs > built);
if (missing || newer) {
  const why = missing ? `${relative(repoDir, missing)} is missing` : `${relative(repoDir, newer)} changed after the last build`;
  console.error(`npm pack: ${why}: run \`npm run build\` in web/ first (scripts/run.sh does it when needed)`);
  process.exit(1);
}
