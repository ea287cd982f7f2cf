// The README's npm steps, run as written against a started server: its shell block from the
// repository root, every command as the README prints it, on a checkout prepared as
// `scripts/run.sh` prepares one (`npm ci` and `npm run build` done, which this suite has done
// before the tests: the README's `npm pack` packs that build, and refuses a missing or stale
// one), into a fresh folder of its own (the only change: /tmp/reel-demo becomes a temp folder,
// and the key is this server's), with the README's example saved as demo.mjs in a folder whose
// package.json (from `npm init -y`) does not say "type": "module". Its branding request, and
// the one in docs/API-DESIGN.md, pass the package's validator.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { validateCreateVideo } from 'stillreel';
import { repoDir, webDir } from '../scripts/config.mjs';
import { target } from '../e2e/target.mjs';

const readme = readFileSync(resolve(repoDir, 'README.md'), 'utf8');
const blocks = (text, lang) => [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

let server;
let dir;
const version = JSON.parse(readFileSync(resolve(webDir, 'package.json'), 'utf8')).version;
const tarball = resolve(webDir, `stillreel-${version}.tgz`);
const hadTarball = existsSync(tarball);

before(async () => {
  server = await target({ own: true, env: { STILLREEL_SAMPLES_DIR: resolve(repoDir, 'samples') } });
  dir = mkdtempSync(join(tmpdir(), 'stillreel-readme-'));
});

after(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (!hadTarball) rmSync(tarball, { force: true });
});

test('the README npm steps run as written and the example prints a playable video URL', async (t) => {
  if (!server.live) return t.skip(server.why);
  const steps = blocks(readme, 'sh').find((b) => b.includes('npm pack'));
  assert.ok(steps, 'the README has a shell block with npm pack');
  const demo = blocks(readme, 'js').find((b) => b.startsWith('// demo.mjs'));
  assert.ok(demo, 'the README has the demo.mjs example');
  assert.match(steps, /node demo\.mjs/);
  const folder = join(dir, 'reel-demo');
  const lines = steps.split('\n').filter((l) => l.trim()).map((line) =>
    line.replaceAll('/tmp/reel-demo', folder).replace('STILLREEL_KEY=sr_...', `STILLREEL_KEY=${server.key}`));
  execFileSync('mkdir', ['-p', folder]);
  // The example as the README prints it, pointed at this test's server instead of :8080.
  writeFileSync(join(folder, 'demo.mjs'), demo.replaceAll('http://127.0.0.1:8080', server.url));
  const out = execFileSync('bash', ['-euo', 'pipefail', '-c', lines.join('\n')], {
    cwd: repoDir,
    encoding: 'utf8',
    // The package has no dependencies: nothing here needs the registry.
    env: { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_loglevel: 'error' },
    timeout: 240_000,
  });
  const pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  assert.notEqual(pkg.type, 'module', 'the example must run without "type": "module"');
  const url = out.trim().split('\n').at(-1);
  assert.match(url, new RegExp(`^${server.url}/files/videos/[0-9a-f-]{36}/video-[0-9a-f]{32}\\.mp4$`), out);
  assert.match(out, /100%/, 'the progress bar reached 100 %');
  const video = await fetch(url);
  assert.equal(video.status, 200);
  assert.equal(video.headers.get('content-type'), 'video/mp4');
  const bytes = Buffer.from(await video.arrayBuffer());
  assert.equal(bytes.subarray(4, 8).toString('latin1'), 'ftyp', 'an MP4 file');
});

/** The first JSON request body with a "branding" member in a fenced block of `text` (blocks
 * that are not plain JSON are skipped). */
function brandingExample(text) {
  for (const block of [...blocks(text, 'sh'), ...blocks(text, 'json')]) {
    const start = block.indexOf('{\n');
    if (start < 0 || !block.includes('"branding"')) continue;
    const end = block.lastIndexOf('\n}') + 2;
    // A shell example with quoting inside its body (`'$BASE'`) is not a JSON document: skip it.
    try {
      return JSON.parse(block.slice(start, end));
    } catch {
      continue;
    }
  }
  return undefined;
}

test('the branding examples of the README and docs/API-DESIGN.md are valid requests', () => {
  for (const file of ['README.md', 'docs/API-DESIGN.md']) {
    const body = brandingExample(readFileSync(resolve(repoDir, file), 'utf8'));
    assert.ok(body, `${file} has a branding example`);
    assert.ok(body.branding.intro && body.branding.outro && body.branding.speed_ramp === true, `${file}: intro, outro and speed ramp`);
    const result = validateCreateVideo(body);
    assert.deepEqual(result.errors ?? [], [], file);
    assert.equal(result.ok, true, file);
  }
});
