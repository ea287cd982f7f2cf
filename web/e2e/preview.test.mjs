// Same pixels: the preview module, in headless Chromium, draws the frames the renderer draws
// before encoding. The native side is the render crate's example `reference_frames` (the clip
// step's in-process path: its plan, canvas, depth checks and `write_frames` on the renderer's
// threads and SIMD); each case's frames are compared byte by byte with what the preview draws
// from the same photo (and depth map) through the package's `createPreview`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoDir, webDir } from '../scripts/config.mjs';
import { serve } from '../scripts/static-server.mjs';
import { launch } from '../scripts/browser.mjs';

/** The renderer's reference frames: STILLREEL_PREVIEW_REF, else made here by the example. */
function referenceFrames() {
  if (process.env.STILLREEL_PREVIEW_REF) return { dir: process.env.STILLREEL_PREVIEW_REF, made: false };
  const dir = mkdtempSync(join(tmpdir(), 'stillreel-preview-ref-'));
  execFileSync('cargo', ['run', '--quiet', '-p', 'stillreel-render', '--example', 'reference_frames', '--', dir], {
    cwd: repoDir,
    stdio: 'inherit',
    env: { ...process.env, CARGO_INCREMENTAL: '0' },
  });
  return { dir, made: true };
}

/** A blank page on the served origin, so the package's modules import from it. */
function blankPage() {
  const dir = mkdtempSync(join(tmpdir(), 'stillreel-preview-page-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><title>preview</title><canvas id="c"></canvas>');
  return dir;
}

test('the preview draws the renderer\'s frames: every motion, flat and depth, landscape and portrait', { timeout: 600_000 }, async () => {
  assert.ok(existsSync(resolve(webDir, 'dist/stillreel/pkg-preview/stillreel_preview_bg.wasm')), 'run `npm run build` first');
  const ref = referenceFrames();
  const page = blankPage();
  const server = await serve({
    '/': page,
    '/stillreel/': resolve(webDir, 'dist/stillreel'),
    '/samples/': resolve(repoDir, 'samples'),
    '/ref/': ref.dir,
  });
  const browser = await launch();
  try {
    const tab = await browser.newPage();
    await tab.goto(`${server.url}/`);
    const { out: results, motions } = await tab.evaluate(async () => {
      const { validateCreateVideo } = await import('/stillreel/src/browser.js');
      const { createPreview } = await import('/stillreel/src/preview.js');
      const manifest = await (await fetch('/ref/manifest.json')).json();
      const out = [];
      const motions = [];
      // `auto` picks the renderer's motion for every sample, a WebP too (decoded by the
      // browser, other pixels than ffmpeg's canvas, but its motion comes from its own bytes).
      for (const m of manifest.motions) {
        const checked = validateCreateVideo({
          image_inputs: [{ image_url: `https://photos.example.com/${m.photo}`, fit: m.fit }], orientation: m.orientation, ai_engine: 'v25',
        });
        const preview = await createPreview(checked.normalized, [`/samples/${m.photo}`]);
        motions.push({ ...m, got: preview.clip(0).motion, note: preview.clip(0).note });
        preview.free();
      }
      for (const c of manifest.cases) {
        const input = { image_url: `https://photos.example.com/${c.photo}`, camera_motion: c.camera_motion, fit: c.fit };
        // The ramp's pacing comes with a video that asks for the ramp (two clips or more).
        const ramp = c.pace === 'through';
        const checked = validateCreateVideo({
          image_inputs: ramp ? [input, input] : [input],
          orientation: c.orientation,
          resolution: c.resolution,
          ai_engine: 'v25',
          ...(ramp ? { branding: { speed_ramp: true } } : {}),
        });
        if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
        const preview = await createPreview(checked.normalized, [`/samples/${c.photo}`], {
          width: c.width,
          height: c.height,
          depthMaps: [c.depth ? `/samples/${c.depth}` : null],
        });
        const info = preview.clip(0);
        const frames = [];
        // The camera moves: the first and last frames differ (a blank or frozen clip would
        // match a blank or frozen reference).
        const [first, last] = [preview.clipYuv(0, c.frames[0]), preview.clipYuv(0, c.frames.at(-1))];
        let moved = 0;
        for (let k = 0; k < first.length; k++) if (Math.abs(first[k] - last[k]) > 8) moved++;
        for (const [i, n] of c.frames.entries()) {
          const mine = preview.clipYuv(0, n);
          const theirs = new Uint8Array(await (await fetch(`/ref/${c.files[i]}`)).arrayBuffer());
          let max = 0;
          let differing = 0;
          if (mine && mine.length === theirs.length) {
            for (let k = 0; k < mine.length; k++) {
              const d = Math.abs(mine[k] - theirs[k]);
              if (d > 0) differing++;
              if (d > max) max = d;
            }
          }
          frames.push({ n, length: mine?.length ?? 0, expected: theirs.length, max, differing });
        }
        preview.free();
        out.push({ name: c.name, want: c.motion, depthWanted: c.depth !== null, info, frames, moved: moved / first.length });
      }
      return { out, motions };
    });
    assert.equal(results.length, 22, 'every reference case ran');
    assert.equal(motions.length, 32);
    for (const m of motions) {
      assert.equal(m.got, m.motion, `${m.photo} ${m.orientation} ${m.fit}: the auto motion`);
      if (m.photo.endsWith('.webp')) assert.match(m.note, /decoded by the browser/);
    }
    let exact = 0;
    let frames = 0;
    for (const r of results) {
      assert.ok(r.info.ready, `${r.name}: ${r.info.note}`);
      assert.equal(r.info.motion, r.want, `${r.name}: the motion the renderer resolved`);
      assert.equal(r.info.depth, r.depthWanted, `${r.name}: depth ${r.info.note ?? ''}`);
      assert.ok(r.moved > 0.05, `${r.name}: only ${(r.moved * 100).toFixed(1)} % of the bytes change over the clip`);
      for (const f of r.frames) {
        frames++;
        assert.equal(f.length, f.expected, `${r.name} frame ${f.n}: size`);
        assert.ok(f.max <= 1, `${r.name} frame ${f.n}: a byte differs by ${f.max} levels (${f.differing} differ)`);
        if (f.differing === 0) exact++;
      }
    }
    console.log(`preview same-pixels: ${results.length} cases, ${frames} frames, ${exact} byte-exact, the rest within one level`);
  } finally {
    await browser.close();
    await server.close();
    rmSync(page, { recursive: true, force: true });
    if (ref.made) rmSync(ref.dir, { recursive: true, force: true });
  }
});
