// The form's preview in headless Chromium: photos uploaded from this computer play in their
// rows and in the whole-video preview before "Create"; changing a motion, the engine, the
// framing, a caption or the transition redraws the preview at once. Screenshots of it
// (`form-preview*.png`) go where the form's others go (shots.mjs). Needs a server (uploads).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launch } from '../scripts/browser.mjs';
import { repoDir } from '../scripts/config.mjs';
import { shotsDir } from './shots.mjs';
import { connect, target } from './target.mjs';

const site = await target();
const needsServer = site.live ? false : site.why;
let browser;
before(async () => { browser = await launch(); });
after(async () => {
  await browser?.close();
  await site.close();
});

const samples = (...names) => names.map((n) => resolve(repoDir, 'samples', n));

/** The preview canvas's pixels (RGBA) and its revision (bumped on every rebuild). */
async function grab(page, selector = '#preview-canvas') {
  return page.$eval(selector, (c) => ({
    revision: Number(c.dataset.revision ?? 0),
    width: c.width,
    height: c.height,
    pixels: Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data),
  }));
}

/** Share of pixels (channels) that differ by more than 8 levels. */
function changed(a, b) {
  if (a.pixels.length !== b.pixels.length) return 1;
  let n = 0;
  for (let i = 0; i < a.pixels.length; i++) if (Math.abs(a.pixels[i] - b.pixels[i]) > 8) n++;
  return n / a.pixels.length;
}

/** Shows `frame` of the preview (the scrubber) and grabs it. */
async function at(page, frame) {
  await page.$eval('#preview-scrub', (s, f) => { s.value = String(f); s.dispatchEvent(new Event('input')); }, frame);
  return grab(page);
}

/** Waits for a rebuild after `revision`, then shows `frame`. */
async function rebuilt(page, revision, frame) {
  await page.waitForFunction((r) => Number(document.getElementById('preview-canvas').dataset.revision ?? 0) > r
    && document.getElementById('preview-canvas').dataset.state === 'ready', revision, { timeout: 20000 });
  return at(page, frame);
}

/** A mono 16-bit WAV of `seconds` of a 440 Hz tone, written to a temporary file. */
function toneFile(seconds) {
  const rate = 8000;
  const samples = seconds * rate;
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) wav.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  const path = join(mkdtempSync(join(tmpdir(), 'stillreel-tone-')), 'tone.wav');
  writeFileSync(path, wav);
  return path;
}

/** A page of the form, `height` tall, connected with the site's key; its page errors collected. */
async function connected(height) {
  const page = await browser.newPage({ viewport: { width: 1200, height } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${site.url}/`);
  await connect(page, site);
  return { page, problems };
}

async function shoot(page, selector, name) {
  await page.locator(selector).screenshot({ path: resolve(shotsDir, name) });
}

test('uploaded photos play in their rows and in the whole video; every change redraws at once', { skip: needsServer, timeout: 300_000 }, async () => {
  const { page, problems } = await connected(900);

  // Two photos uploaded from this computer become two rows; the preview draws both.
  await page.setInputFiles('#upload-input', samples('house-colonial.jpg', 'living-room.png'));
  await page.waitForFunction(() => document.querySelectorAll('#uploads [data-state="done"]').length === 2, null, { timeout: 60000 });
  await page.waitForFunction(() => [...document.querySelectorAll('#images .image-row')].filter((r) => r.dataset.preview === 'ready').length === 2, null, { timeout: 30000 });
  const start = await rebuilt(page, 0, 60);
  assert.equal(start.width, 640);
  assert.equal(start.height, 360);
  // A photograph, not a blank canvas: many distinct values.
  assert.ok(new Set(start.pixels.filter((_, i) => i % 4 === 1)).size > 100, 'the preview shows the photo');
  assert.match(await page.textContent('#preview-time'), /\/ 10\.0 s/);
  const row = await grab(page, '#images .image-row:nth-child(1) .clip-canvas');
  assert.ok(new Set(row.pixels.filter((_, i) => i % 4 === 1)).size > 100, 'the row shows its clip');
  await shoot(page, '#video-preview', 'form-preview.png');

  // A motion: frame 60 of an orbit is not frame 60 of the push the auto rule chose.
  let before = start;
  await page.selectOption('#images .image-row:nth-child(1) .f-motion', 'orbit-left');
  let after = await rebuilt(page, before.revision, 60);
  assert.ok(changed(before, after) > 0.2, `motion: ${changed(before, after)}`);

  // The framing: the whole photo over a blurred fill.
  before = after;
  await page.selectOption('#images .image-row:nth-child(1) .f-fit', 'contain-blur');
  after = await rebuilt(page, before.revision, 60);
  assert.ok(changed(before, after) > 0.2, `fit: ${changed(before, after)}`);

  // The engine: v24 moves linearly, v25 eases (frame 20 differs); orbits need v25, so push first.
  await page.selectOption('#images .image-row:nth-child(1) .f-motion', 'push-in');
  before = await rebuilt(page, after.revision, 20);
  await page.selectOption('#engine', 'v24');
  after = await rebuilt(page, before.revision, 20);
  assert.ok(changed(before, after) > 0.05, `engine: ${changed(before, after)}`);
  await page.selectOption('#engine', 'v25');
  after = await rebuilt(page, after.revision, 20);

  // A caption: its plate appears over the clip (lower left).
  before = await at(page, 75);
  await page.fill('#images .image-row:nth-child(1) .f-caption', 'Primary suite');
  after = await rebuilt(page, before.revision, 75);
  assert.ok(changed(before, after) > 0.01, `caption: ${changed(before, after)}`);

  // The transition: a crossfade overlaps the clips by 0.5 s and blends them at the join
  // (frame 142 is clip 1 alone with a cut, a blend of both with the crossfade).
  before = await at(page, 142);
  await page.click('#transition label:has(input[value="crossfade"])');
  after = await rebuilt(page, before.revision, 142);
  assert.match(await page.textContent('#preview-time'), /\/ 9\.5 s/);
  assert.ok(changed(before, after) > 0.2, `transition: ${changed(before, after)}`);
  await shoot(page, '#video-preview', 'form-preview-crossfade.png');

  // Play: the position moves with the clock; a row plays its own clip.
  await page.click('#preview-play');
  await page.waitForTimeout(1200);
  const position = Number(await page.$eval('#preview-scrub', (s) => s.value));
  assert.ok(position > 20, `played to frame ${position}`);
  await page.click('#preview-play');
  await page.click('#images .image-row:nth-child(2) .clip-play');
  await page.waitForFunction(() => document.querySelector('#images .image-row:nth-child(2) .clip-canvas').dataset.playing === 'true');
  await shoot(page, '#images', 'form-preview-rows.png');
  assert.deepEqual(problems, []);
});

test('a portrait video previews portrait, and a photo on another site is named, not drawn', { skip: needsServer, timeout: 120_000 }, async () => {
  const { page } = await connected(1100);
  await page.setInputFiles('#upload-input', samples('house-townhouse-portrait.jpg'));
  await page.waitForFunction(() => document.querySelector('#images .image-row')?.dataset.preview === 'ready', null, { timeout: 60000 });
  const before = await grab(page);
  await page.click('#orientation label:has(input[value="portrait"])');
  const portrait = await rebuilt(page, before.revision, 30);
  assert.equal(portrait.width, 360);
  assert.equal(portrait.height, 640);
  await page.click('#add-image');
  await page.fill('#images .image-row:nth-child(2) .f-url', 'https://photos.example.com/elsewhere.jpg');
  await page.waitForFunction(() => /Photo 2: .*another site/.test(document.getElementById('preview-status').textContent), null, { timeout: 20000 });
  await shoot(page, '#video-preview', 'form-preview-portrait.png');
});

test('the music plays along with the preview: at the time of the video, looped, fading out at the end', { skip: needsServer, timeout: 120_000 }, async () => {
  const { page, problems } = await connected(900);
  await page.setInputFiles('#upload-input', samples('house-colonial.jpg'));
  await page.waitForFunction(() => document.querySelector('#images .image-row')?.dataset.preview === 'ready', null, { timeout: 60000 });
  // A 3 s tone under a 5 s video: the renderer loops it, and so does the preview.
  await page.setInputFiles('#audio ~ .file-picker input.file-chooser', toneFile(3));
  await page.waitForFunction(() => /^http/.test(document.getElementById('audio').value), null, { timeout: 30000 });
  await page.waitForFunction(() => /Music: plays along, looped and fading out over the last 1\.0 s/.test(document.getElementById('preview-status').textContent), null, { timeout: 30000 });
  const audio = () => page.$eval('#preview-audio', (a) => ({
    paused: a.paused,
    time: a.currentTime,
    volume: a.volume,
    frame: Number(document.getElementById('preview-scrub').value),
  }));
  assert.match(await page.$eval('#preview-audio', (a) => a.src), /^http/);
  assert.equal((await audio()).paused, true, 'silent until Play');

  // From 2.0 s: at 3.4 s of video the tone is 0.4 s into its second round.
  await page.$eval('#preview-scrub', (s) => { s.value = '60'; s.dispatchEvent(new Event('input')); });
  await page.click('#preview-play');
  await page.waitForFunction(() => Number(document.getElementById('preview-scrub').value) >= 100, null, { timeout: 10000 });
  const mid = await audio();
  assert.equal(mid.paused, false, 'the music plays with the picture');
  const want = (mid.frame / 30) % 3;
  const off = Math.min(Math.abs(mid.time - want), 3 - Math.abs(mid.time - want));
  // The player lets the track drift a quarter second before it seeks; the rest is slack for a
  // loaded machine.
  assert.ok(off < 0.45, `the music is at ${mid.time.toFixed(2)} s, the video at ${(mid.frame / 30).toFixed(2)} s (want ${want.toFixed(2)})`);
  // Read in one snapshot with the frame the player last drew, and set for that frame.
  if (mid.frame < 120) assert.equal(mid.volume, 1, `full level before the last second (frame ${mid.frame})`);
  // In the last second it fades; at the end it stops with the picture.
  await page.waitForFunction(() => Number(document.getElementById('preview-scrub').value) >= 135, null, { timeout: 10000 });
  const fading = await audio();
  assert.ok(fading.volume < 0.6 && fading.volume > 0, `fading: ${fading.volume} at frame ${fading.frame}`);
  await page.waitForFunction(() => document.getElementById('preview-canvas').dataset.playing === 'false', null, { timeout: 10000 });
  const end = await audio();
  assert.equal(end.paused, true, 'the music stops with the video');
  assert.ok(end.volume < 0.05, `silent at the end: ${end.volume}`);
  assert.deepEqual(problems, []);
});
