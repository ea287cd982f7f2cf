// The form's uploads and library in headless Chromium against a real server: photos dropped
// on the form are uploaded (several at once, with progress), a video is created from them, it
// appears in the Library tab with its poster and status, downloads, and is deleted. The
// previews of every template and effect load beside their pickers and in the galleries.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { launch } from '../scripts/browser.mjs';
import { repoDir } from '../scripts/config.mjs';
import { shotsDir } from './shots.mjs';
import { connect, target } from './target.mjs';

const RENDER_TIMEOUT_MS = Number(process.env.STILLREEL_E2E_RENDER_TIMEOUT_MS ?? 300000);

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
  await page.screenshot({ path: resolve(shotsDir, name) });
  await page.setViewportSize(viewport);
}

/** Drops `paths` on the form's drop zone as a user dragging them from a file manager would:
 * a DataTransfer holding the files, dragover then drop. */
async function dropFiles(page, paths) {
  const files = paths.map((path) => ({
    name: basename(path),
    type: path.endsWith('.png') ? 'image/png' : 'image/jpeg',
    data: readFileSync(path).toString('base64'),
  }));
  const transfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) {
      const bytes = Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], f.name, { type: f.type }));
    }
    return dt;
  }, files);
  await page.dispatchEvent('#dropzone', 'dragover', { dataTransfer: transfer });
  assert.ok(await page.$eval('#dropzone', (z) => z.classList.contains('over')), 'the zone shows the drag');
  await page.dispatchEvent('#dropzone', 'drop', { dataTransfer: transfer });
}

/** Scrolls to every figure `selector` matches, as a user looking through a gallery would, and
 * waits until its still has loaded or failed. The stills load lazily: one far below the
 * viewport stays "loading" until it comes near, however long a test waits. */
async function seeEvery(page, selector) {
  for (const fig of await page.$$(selector)) {
    await fig.scrollIntoViewIfNeeded();
    await page.waitForFunction((f) => f.dataset.state !== 'loading', fig, { timeout: 60000 });
  }
}

test('previews of every template and every effect', { skip: site.live ? false : site.why }, async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${site.url}/`);
  await connect(page, site);
  const templates = (await (await fetch(`${site.url}/api/v1/get_templates`, { headers: { Authorization: site.key } })).json()).templates;
  const effects = await page.evaluate(() => window.stillreel.vfxTypes());
  assert.equal(effects.length, 13);

  // The effects gallery: a still for every effect the renderer draws by itself, a note for
  // the generative ones.
  await page.click('#vfx-gallery summary');
  await seeEvery(page, '#vfx-gallery .preview');
  const shown = await page.$$eval('#vfx-gallery .preview', (figs) => figs.map((f) => [f.dataset.preview, f.dataset.state, f.querySelector('img')?.naturalWidth ?? 0]));
  assert.deepEqual(shown.map(([key]) => key), effects.map((e) => `vfx:${e.type}`));
  for (const [key, state, width] of shown) {
    const generative = effects.find((e) => `vfx:${e.type}` === key).generative;
    assert.equal(state, generative ? 'none' : 'loaded', key);
    if (!generative) assert.equal(width, 480, `${key} is a real still`);
  }
  await page.$eval('#vfx-gallery', (g) => g.scrollIntoView());
  await page.screenshot({ path: resolve(shotsDir, 'form-effect-previews.png') });

  // The templates gallery in the branding card: every template has its still.
  await page.click('#create-branding-templates summary');
  await seeEvery(page, '#create-branding-templates .preview');
  const stills = await page.$$eval('#create-branding-templates .preview', (figs) => figs.map((f) => [f.dataset.preview, f.dataset.state]));
  assert.deepEqual(stills, templates.map((t) => [`template:${t.id}`, 'loaded']));

  // Beside the pickers: the chosen template's and the chosen effect's still.
  await page.selectOption('#create-branding [data-field="branding.intro.template"]', 'intro-title-card');
  await page.waitForSelector('#create-branding .slot [data-preview="template:intro-title-card"][data-state="loaded"]');
  await page.$eval('#create-branding', (card) => card.scrollIntoView());
  await page.screenshot({ path: resolve(shotsDir, 'form-template-previews.png') });
  await page.fill('#images .f-url', `${site.url}/samples/house-colonial.jpg`);
  await page.selectOption('#images .f-vfx', 'day-to-twilight');
  await page.waitForSelector('#images [data-preview="vfx:day-to-twilight"][data-state="loaded"]');
  await page.$eval('#images', (list) => list.scrollIntoView());
  await page.screenshot({ path: resolve(shotsDir, 'form-previews.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('upload → brand kit → draft and result survive a reload → create → library (poster, status) → download → delete', { skip: site.live ? false : site.why }, async () => {
  const photos = ['house-colonial.jpg', 'living-room.png'].map((name) => resolve(repoDir, 'samples', name));
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${site.url}/`);
  // Remembered: the draft and the results are kept (per key) only for a remembered key.
  await page.setChecked('#api-key-remember', true);
  await connect(page, site);

  // Several files dropped at once; each gets its row with a progress bar (the upload is slowed
  // to 1 MB/s so progress is seen between 0 and 100), and, once stored, a photo row with its URL.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 1e6 });
  await page.evaluate(() => {
    window.progressSeen = {};
    new MutationObserver((records) => {
      for (const r of records) {
        const name = r.target.closest('li')?.dataset.name;
        (window.progressSeen[name] ??= []).push(Number(r.target.getAttribute('aria-valuenow')));
      }
    }).observe(document.getElementById('uploads'), { subtree: true, attributeFilter: ['aria-valuenow'] });
  });
  await dropFiles(page, photos);
  assert.equal(await page.$$eval('.uploads li', (rows) => rows.length), 2, 'a row per dropped file at once');
  await page.waitForFunction(() => {
    const now = Number(document.querySelector('.uploads li[data-state="uploading"] [aria-valuenow]')?.getAttribute('aria-valuenow'));
    return now > 0 && now < 100;
  }, null, { timeout: 30000 });
  await page.screenshot({ path: resolve(shotsDir, 'form-upload-progress.png') });
  await page.waitForFunction(() => document.querySelectorAll('.uploads li[data-state="done"]').length === 2, null, { timeout: 30000 });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  const seen = await page.evaluate(() => window.progressSeen);
  for (const photo of photos) {
    const values = seen[basename(photo)] ?? [];
    assert.ok(values.some((v) => v > 0 && v < 100), `${basename(photo)}: progress between 0 and 100 (${values})`);
    assert.deepEqual(values, [...values].sort((a, b) => a - b), 'progress never goes back');
    assert.equal(values.at(-1), 100);
  }
  const urls = await page.$$eval('.f-url', (inputs) => inputs.map((i) => i.value));
  assert.equal(urls.length, 2);
  for (const url of urls) assert.ok(url.startsWith(`${site.url}/files/uploads/`), url);
  // A file that is not a picture is refused, with the server's reason on its row.
  const bogus = join(dir, 'notes.png');
  execFileSync('sh', ['-c', `echo 'not a picture' > ${bogus}`]);
  await page.setInputFiles('#upload-input', [bogus]);
  await page.waitForSelector('.uploads li[data-state="error"]');
  assert.match(await page.textContent('.uploads li[data-state="error"]'), /not a JPEG, PNG, WebP or HEIC/);
  // The preview has drawn both uploaded photos (their rows and the whole video) before the shot.
  await page.waitForFunction(() => [...document.querySelectorAll('#images .image-row')].every((r) => r.dataset.preview === 'ready'), null, { timeout: 20000 });
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
  await page.screenshot({ path: resolve(shotsDir, 'form-brand-kit.png') });

  // Everything typed survives a reload.
  await page.reload();
  await page.waitForFunction(() => document.getElementById('conn').textContent.startsWith('connected'));
  assert.deepEqual(await page.$$eval('.f-url', (inputs) => inputs.map((i) => i.value)), urls, 'the photo rows came back');
  assert.equal(await page.$eval('#create-branding .kit-select', (s) => s.value), kits.brand_kits[0].uuid);
  assert.equal(await page.inputValue('#create-branding [data-field="branding.outro.config.brokerage"]'), 'Acme Realty');

  await page.waitForSelector('#create-submit[data-ready="true"]');
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
  assert.match(await page.textContent(`${card} .meta`), /^complete · 2 clip\(s\) · branded complete · /);
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
