// `npm run build`: the wasm package (wasm-pack, then npm binaryen's wasm-opt) and the form in
// dist/. Every setting comes from /wasm-pack.toml.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig, webDir } from './config.mjs';

const config = loadConfig();
const run = (cmd, args) => {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { stdio: 'inherit' });
};

if (!existsSync(config.wasmOpt)) {
  throw new Error(`${config.wasmOpt} is missing: run \`npm ci\` in web/ (npm binaryen provides wasm-opt)`);
}

for (const target of config.targets) {
  // Several targets go to sibling directories; a single one to out_dir itself.
  const outDir = config.targets.length === 1 ? config.outDir : `${config.outDir}-${target}`;
  // wasm-bindgen names the inline_js folder by a hash; an old one would be shipped and counted.
  rmSync(resolve(outDir, 'snippets'), { recursive: true, force: true });
  run('wasm-pack', [
    'build', config.crate, '--target', target,
    // wasm-pack takes exactly one of --release, --dev or --profile <name>.
    ...(config.profile === 'release' || config.profile === 'dev' ? [`--${config.profile}`] : ['--profile', config.profile]),
    '--out-dir', outDir, '--out-name', config.outName, '--no-pack', '--mode', 'no-install',
    // wasm-opt runs below, with the flags from wasm-pack.toml (never wasm-pack's own choice).
    '--no-opt',
  ]);
  const wasm = resolve(outDir, `${config.outName}_bg.wasm`);
  const optimized = `${wasm}.opt`;
  run(config.wasmOpt, [...config.wasmOptFlags, wasm, '-o', optimized]);
  renameSync(optimized, wasm);
  // The glue wasm-bindgen writes is readable source with comments; esbuild (pinned in
  // package.json) minifies it in place, 1.6 KiB gzip off the browser's download. Export names
  // and `import.meta.url` (how the glue finds the .wasm) are kept by ES module minification.
  const glue = resolve(outDir, `${config.outName}.js`);
  run(resolve(webDir, 'node_modules/.bin/esbuild'), [glue, '--minify', '--format=esm', `--outfile=${glue}`, '--allow-overwrite', '--log-level=warning']);
  // wasm-pack writes a `.gitignore` of `*` into the output. npm applies ignore files inside the
  // folders listed in package.json "files", so that one dropped pkg/snippets/ from the tarball
  // and the installed package failed to import. web/.gitignore already keeps pkg/ out of git.
  rmSync(resolve(outDir, '.gitignore'), { force: true });
}

// The form: static files plus the package itself, laid out as the package is, so the form
// imports `./stillreel/src/browser.js` exactly as an app would import the package.
const dist = resolve(webDir, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
cpSync(resolve(webDir, 'form'), dist, { recursive: true });
cpSync(resolve(webDir, 'src'), resolve(dist, 'stillreel/src'), { recursive: true });
cpSync(config.outDir, resolve(dist, 'stillreel/pkg'), {
  recursive: true,
  filter: (src) => !src.endsWith('.gitignore'),
});

const { measure } = await import('./size.mjs');
const { total } = measure(config);
console.log(`build: done; wasm + glue + wrapper ${(total.raw / 1024).toFixed(1)} KiB raw, ${(total.gzip / 1024).toFixed(1)} KiB gzip`);
