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

/** Builds one wasm module (wasm-pack, then wasm-opt, then the glue minified) as `m` says. */
function buildModule(m) {
  for (const target of m.targets) {
    // Several targets go to sibling directories; a single one to out_dir itself.
    const outDir = m.targets.length === 1 ? m.outDir : `${m.outDir}-${target}`;
    // wasm-bindgen names the inline_js folder by a hash; an old one would be shipped and counted.
    rmSync(resolve(outDir, 'snippets'), { recursive: true, force: true });
    run('wasm-pack', [
      'build', m.crate, '--target', target,
      // wasm-pack takes exactly one of --release, --dev or --profile <name>.
      ...(m.profile === 'release' || m.profile === 'dev' ? [`--${m.profile}`] : ['--profile', m.profile]),
      '--out-dir', outDir, '--out-name', m.outName, '--no-pack', '--mode', 'no-install',
      // wasm-opt runs below, with the flags from wasm-pack.toml (never wasm-pack's own choice).
      '--no-opt',
    ]);
    const wasm = resolve(outDir, `${m.outName}_bg.wasm`);
    const optimized = `${wasm}.opt`;
    run(m.wasmOpt, [...m.wasmOptFlags, wasm, '-o', optimized]);
    renameSync(optimized, wasm);
    // The glue wasm-bindgen writes is readable source with comments; esbuild (pinned in
    // package.json) minifies it in place, 1.6 KiB gzip off the browser's download. Export names
    // and `import.meta.url` (how the glue finds the .wasm) are kept by ES module minification.
    const glue = resolve(outDir, `${m.outName}.js`);
    run(resolve(webDir, 'node_modules/.bin/esbuild'), [glue, '--minify', '--format=esm', `--outfile=${glue}`, '--allow-overwrite', '--log-level=warning']);
    // wasm-pack writes a `.gitignore` of `*` into the output. npm applies ignore files inside the
    // folders listed in package.json "files", so that one dropped pkg/snippets/ from the tarball
    // and the installed package failed to import. web/.gitignore already keeps pkg/ out of git.
    rmSync(resolve(outDir, '.gitignore'), { force: true });
  }
}

// The validation module, then the preview's (`[preview]` in wasm-pack.toml).
buildModule(config);
buildModule(config.preview);

// The form: static files plus the package itself, laid out as the package is, so the form
// imports `./stillreel/src/browser.js` exactly as an app would import the package.
const dist = resolve(webDir, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
cpSync(resolve(webDir, 'form'), dist, { recursive: true });
cpSync(resolve(webDir, 'src'), resolve(dist, 'stillreel/src'), { recursive: true });
for (const [from, to] of [[config.outDir, 'stillreel/pkg'], [config.preview.outDir, 'stillreel/pkg-preview']]) {
  cpSync(from, resolve(dist, to), { recursive: true, filter: (src) => !src.endsWith('.gitignore') });
}

const { measure, measurePreview } = await import('./size.mjs');
const kib = (n) => (n / 1024).toFixed(1);
const { total } = measure(config);
const preview = measurePreview(config).total;
console.log(`build: done; validation: wasm + glue + wrapper ${kib(total.raw)} KiB raw, ${kib(total.gzip)} KiB gzip; preview: ${kib(preview.raw)} KiB raw, ${kib(preview.gzip)} KiB gzip`);
