// Reads /wasm-pack.toml: the one place the package's build settings live.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { parse } from 'smol-toml';

export const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = resolve(webDir, '..');

export function loadConfig() {
  const path = resolve(repoDir, 'wasm-pack.toml');
  const config = parse(readFileSync(path, 'utf8'));
  const need = (value, name) => {
    if (value === undefined) throw new Error(`${path}: ${name} is missing`);
    return value;
  };
  const build = need(config.build, '[build]');
  const opt = need(config['wasm-opt'], '[wasm-opt]');
  return {
    path,
    crate: resolve(repoDir, need(build.crate, 'build.crate')),
    profile: need(build.profile, 'build.profile'),
    targets: need(build.targets, 'build.targets'),
    outDir: resolve(repoDir, need(build.out_dir, 'build.out_dir')),
    outName: need(build.out_name, 'build.out_name'),
    wasmOpt: resolve(repoDir, need(opt.binary, 'wasm-opt.binary')),
    wasmOptFlags: need(opt.flags, 'wasm-opt.flags'),
    maxGzipKiB: config.size?.max_gzip_kib ?? 150,
    preview: previewConfig(config.preview, need, opt),
  };
}

/** The preview module's settings (`[preview]`), shaped as the validation module's. */
function previewConfig(preview, need, opt) {
  const p = need(preview, '[preview]');
  return {
    crate: resolve(repoDir, need(p.crate, 'preview.crate')),
    profile: need(p.profile, 'preview.profile'),
    targets: ['web'],
    outDir: resolve(repoDir, need(p.out_dir, 'preview.out_dir')),
    outName: need(p.out_name, 'preview.out_name'),
    wasmOpt: resolve(repoDir, need(opt.binary, 'wasm-opt.binary')),
    wasmOptFlags: need(p.wasm_opt_flags, 'preview.wasm_opt_flags'),
    maxGzipKiB: need(p.max_gzip_kib, 'preview.max_gzip_kib'),
  };
}
