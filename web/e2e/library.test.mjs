// The form's uploads and library in headless Chromium against a real server: photos chosen
// from disk are uploaded (with progress), a video is created from them, it appears in the
// Library tab with its poster and status, downloads, and is deleted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launch } from '../scripts/browser.mjs';
import { repoDir } from '../scripts/config.mjs';
import { target } from './target.mjs';

const RENDER_TIMEOUT_MS = Number(process.env.STILLREEL_E2E_RENDER_TIMEOUT_MS ?? 300000);
const docs = resolve(repoDir, process.env.STILLREEL_E2E_SHOTS_DIR ?? 'docs');
mkdirSync(docs, { recursive: true });

const site = await target({ own: true });
let browser;
let dir;
before(async () => {
  browser = await launch();
  dir = mkdtempSync(join(tmpdir(), 'stillreel-e2e-upload-'));
});
after(async () => {
  await browser?.close();
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

async function shoot(page, name) {
  const viewport = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: viewport.width, height });
  await page.screenshot({ path: resolve(docs, name) });
  await page.setViewportSize(viewport);
}

test('upload → brand kit → draft and result survive a reload → create → library (poster, status) → download → delete', { skip: site.live ? false : site.why }, async () => {
  const photos = ['house-colonial.jpg', 'living-room.png'].map((name) => resolve(repoDir, 'samples', name));
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${site.url}/`);
  await page.fill('#api-key', site.key);
  await page.click('#key-form button');
  await page.waitForFunction(() => document.getElementById('conn').textContent.startsWith('connected'));

  // Several files at once; each gets its row and, once stored, a photo row with its URL.
  await page.setInputFiles('#upload-input', photos);
  await page.waitForFunction(() => document.querySelectorAll('.uploads li[data-state="done"]').length === 2, null, { timeout: 30000 });
  const urls = await page.$$eval('.f-url', (inputs) => inputs.map((i) => i.value));
  assert.equal(urls.length, 2);
  for (const url of urls) assert.ok(url.startsWith(`${site.url}/files/uploads/`), url);
  // A file that is not a picture is refused, with the server's reason on its row.
  const bogus = join(dir, 'notes.png');
  execFileSync('sh', ['-c', `echo 'not a picture' > ${bogus}`]);
  await page.setInputFiles('#upload-input', [bogus]);
  await page.waitForSelector('.uploads li[data-state="error"]');
  assert.match(await page.textContent('.uploads li[data-state="error"]'), /not a JPEG, PNG or WebP/);
  await shoot(page, 'form-uploads.png');

  // A brand kit saved from the branding card, then picked.
  await page.selectOption('#create-branding [data-field="branding.outro.template"]', 'outro-minimal');
  await page.fill('#create-branding [data-field="branding.outro.config.brokerage"]', 'Acme Realty');
  await page.fill('#create-branding .kit-name', 'Acme');
  await page.click('#create-branding .kit-save');
  await page.waitForFunction(() => document.getElementById('banner').textContent.includes('Brand kit “Acme” saved'));
  const kits = await (await fetch(`${site.url}/api/v1/get_brand_kits`, { headers: { Authorization: site.key } })).json();
  assert.deepEqual(kits.brand_kits.map((k) => [k.name, k.outro.template]), [['Acme', 'outro-minimal']]);
  assert.equal(await page.$eval('#create-branding .kit-select', (s) => s.value), kits.brand_kits[0].uuid);
  await page.$eval('#create-branding', (card) => card.scrollIntoView());
  await page.screenshot({ path: resolve(docs, 'form-brand-kit.png') });

  // Everything typed survives a reload.
  await page.reload();
  await page.waitForFunction(() => document.getElementById('conn').textContent.startsWith('connected'));
  assert.deepEqual(await page.$$eval('.f-url', (inputs) => inputs.map((i) => i.value)), urls, 'the photo rows came back');
  assert.equal(await page.$eval('#create-branding .kit-select', (s) => s.value), kits.brand_kits[0].uuid);
  assert.equal(await page.inputValue('#create-branding [data-field="branding.outro.config.brokerage"]'), 'Acme Realty');

  await page.waitForFunction(() => !document.getElementById('create-submit').disabled);
  await page.click('#create-submit');
  await page.waitForSelector('.result[data-video]');
  const uuid = await page.getAttribute('.result[data-video]', 'data-video');
  // The result survives a reload too.
  await page.reload();
  await page.waitForSelector(`.result[data-video="${uuid}"]`, { timeout: 30000 });
  await page.waitForSelector(`.result[data-video="${uuid}"][data-status="complete"]`, { timeout: RENDER_TIMEOUT_MS });
  await page.waitForSelector(`.result[data-video="${uuid}"][data-branding-status="complete"]`, { timeout: RENDER_TIMEOUT_MS });
  const record = await (await fetch(`${site.url}/api/v1/get_video?uuid=${uuid}`, { headers: { Authorization: site.key } })).json();
  assert.equal(record.branding.templates.outro.config.brokerage.value, 'Acme Realty', 'the kit was applied');

  await page.click('#tab-library');
  const card = `.video-card[data-video="${uuid}"]`;
  await page.waitForSelector(`${card}[data-status="complete"] .poster img`, { timeout: 30000 });
  await page.waitForFunction((s) => document.querySelector(s).naturalWidth > 0, `${card} .poster img`);
  assert.equal(await page.$eval(`${card} .poster img`, (img) => img.naturalWidth), 640, 'the poster JPEG loads');
  assert.match(await page.textContent(`${card} .meta`), /complete · 100% · 2 clip\(s\)/);
  const href = await page.getAttribute(`${card} a.download`, 'href');
  const file = await fetch(href);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get('content-type'), 'video/mp4');
  await page.click(`${card} .watch`);
  await page.waitForFunction((s) => document.querySelector(s)?.readyState >= 2, `${card} video`, { timeout: 60000 });
  await shoot(page, 'form-library.png');

  page.once('dialog', (dialog) => dialog.accept());
  await page.click(`${card} .delete`);
  await page.waitForSelector(card, { state: 'detached' });
  const gone = await fetch(`${site.url}/api/v1/get_video?uuid=${uuid}`, { headers: { Authorization: site.key } });
  assert.equal(gone.status, 404);
  assert.equal((await fetch(href)).status, 404, 'the file left storage');
  assert.deepEqual(problems, []);
  await page.close();
});
