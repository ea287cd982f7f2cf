// What `npm pack` produces, installed into a fresh folder as a user would: imported in Node by
// its name, and loaded in Chromium from the installed copy served over http (an import map
// points `stillreel` at the package's browser entry, as a no-bundler site would).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoDir, webDir } from '../scripts/config.mjs';
import { serve } from '../scripts/static-server.mjs';
import { launch } from '../scripts/browser.mjs';

let dir;
let app;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'stillreel-pack-'));
  execFileSync('npm', ['pack', '--pack-destination', dir], { cwd: webDir, stdio: ['ignore', 'ignore', 'inherit'] });
  const [tarball] = readdirSync(dir).filter((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack wrote a tarball');
  app = join(dir, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'pack-check', version: '1.0.0', type: 'module', private: true }));
  // No runtime dependencies, so this needs no registry.
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(dir, tarball)], { cwd: app, stdio: ['ignore', 'ignore', 'inherit'] });
});

after(() => rmSync(dir, { recursive: true, force: true }));

const PROBE = `
  const body = { image_inputs: [{ image_url: 'ftp://example.com/a.jpg' }] };
  const r = m.validateCreateVideo(body);
  const client = m.createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sr_x' });
  return {
    ok: r.ok, fields: r.errors.map((e) => e.field), templates: m.builtinTemplates().length,
    client: typeof client.waitForVideo, errors: [m.StillreelApiError, m.StillreelValidationError, m.StillreelJobError].map((c) => typeof c),
  };`;

const EXPECTED = {
  ok: false, fields: ['image_inputs[0].image_url'], templates: 4, client: 'function', errors: ['function', 'function', 'function'],
};

test('the installed tarball imports in Node by its name', () => {
  const script = `const m = await import('stillreel'); const f = async () => {${PROBE}}; console.log(JSON.stringify(await f()));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), EXPECTED);
});

test('the installed tarball loads in Chromium over http', async () => {
  writeFileSync(join(app, 'index.html'), `<!doctype html><script type="importmap">
    {"imports": {"stillreel": "/node_modules/stillreel/src/browser.js"}}</script>
    <script type="module">import * as m from 'stillreel'; window.result = (() => {${PROBE}})();</script>`);
  const site = await serve({ '/': app });
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const failures = [];
    page.on('pageerror', (err) => failures.push(err.message));
    page.on('requestfailed', (req) => failures.push(`${req.url()} failed`));
    page.on('response', (res) => { if (res.status() >= 400) failures.push(`${res.url()} ${res.status()}`); });
    await page.goto(`${site.url}/index.html`);
    await page.waitForFunction(() => window.result !== undefined || false, null, { timeout: 15000 }).catch(() => {});
    assert.deepEqual(failures, []);
    assert.deepEqual(await page.evaluate(() => window.result), EXPECTED);
  } finally {
    await browser.close();
    await site.close();
  }
});

// The preview, from the installed tarball: its second module loads on first use and draws a
// clip of a sample photo (a photograph: many distinct values, not a blank frame).
const PREVIEW = `
  const checked = m.validateCreateVideo({ image_inputs: [{ image_url: 'https://photos.example.com/house.jpg', camera_motion: 'push-in' }] });
  const preview = await m.createPreview(checked.normalized, [photo]);
  const yuv = preview.clipYuv(0, 75);
  // FNV-1a of the frame's bytes: Node and Chromium must draw the same frame.
  let hash = 0x811c9dc5;
  for (const b of yuv) hash = Math.imul(hash ^ b, 0x01000193) >>> 0;
  const result = { frames: preview.frames, length: yuv.length, distinct: new Set(yuv.subarray(0, 640 * 360)).size, motion: preview.clip(0).motion, hash };
  preview.free();
  return result;`;

test('the installed tarball previews a clip in Node and in Chromium', async () => {
  const photo = join(repoDir, 'samples/house-colonial.jpg');
  const script = `const m = await import('stillreel'); const { readFileSync } = await import('node:fs');
    const photo = readFileSync(${JSON.stringify(photo)}); const f = async () => {${PREVIEW}}; console.log(JSON.stringify(await f()));`;
  const inNode = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' }));
  assert.equal(inNode.frames, 150);
  assert.equal(inNode.length, 640 * 360 * 3 / 2);
  assert.equal(inNode.motion, 'push-in');
  assert.ok(inNode.distinct > 100, `a photograph: ${inNode.distinct} distinct values`);

  writeFileSync(join(app, 'preview.html'), `<!doctype html><script type="importmap">
    {"imports": {"stillreel": "/node_modules/stillreel/src/browser.js"}}</script>
    <script type="module">import * as m from 'stillreel'; const photo = '/samples/house-colonial.jpg';
    window.result = await (async () => {${PREVIEW}})().catch((e) => ({ error: e.message }));</script>`);
  const site = await serve({ '/samples/': join(repoDir, 'samples'), '/': app });
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.goto(`${site.url}/preview.html`);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30000 });
    assert.deepEqual(await page.evaluate(() => window.result), inNode);
  } finally {
    await browser.close();
    await site.close();
  }
});
