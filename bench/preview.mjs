// Benchmark: the browser preview's frame rate in headless Chromium. A four-clip video (three
// JPEG photographs and the PNG interior with its depth map; crossfades; an intro, an outro card
// and the speed ramp) is drawn frame after frame into a <canvas> through the package's
// `Preview.drawFrame` (the camera, the blend, the RGBA conversion, putImageData and the
// overlays: everything playback does per frame), at 640 × 360 and at 1280 × 720.
// Needs `npm ci && npm run build` in web/.
// Usage: node bench/preview.mjs [--runs 3] [--min-fps N]   (--min-fps: exit 1 when the
// 640 × 360 median is below N frames per second)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, '../web');
const { serve } = await import(join(web, 'scripts/static-server.mjs'));
const { launch } = await import(join(web, 'scripts/browser.mjs'));

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, 'min-fps': { type: 'string' } } });

const page = mkdtempSync(join(tmpdir(), 'stillreel-preview-bench-'));
writeFileSync(join(page, 'index.html'), '<!doctype html><meta charset="utf-8"><title>preview bench</title><canvas id="c"></canvas>');
const site = await serve({ '/': page, '/stillreel/': join(web, 'dist/stillreel'), '/samples/': resolve(here, '../samples') });
const browser = await launch();
const sizes = [[640, 360], [1280, 720]];
const rows = [];
try {
  const tab = await browser.newPage();
  await tab.goto(`${site.url}/`);
  for (const [width, height] of sizes) {
    const runs = await tab.evaluate(async ({ width, height, runs }) => {
      const { validateCreateVideo } = await import('/stillreel/src/browser.js');
      const { createPreview } = await import('/stillreel/src/preview.js');
      const photos = ['house-colonial.jpg', 'house-bungalow.jpg', 'house-townhouse-portrait.jpg', 'living-room.png'];
      const checked = validateCreateVideo({
        image_inputs: photos.map((p, i) => ({
          image_url: `https://photos.example.com/${p}`,
          camera_motion: ['push-in', 'orbit-left', 'push-out', 'orbit-right'][i],
          ...(i === 1 ? { caption: { text: 'Sunlit porch', style: 'label' } } : {}),
        })),
        ai_engine: 'v25',
        transition: 'crossfade',
        branding: {
          intro: { template: 'intro-lower-third', config: { address: { value: '12 Elm Street' } } },
          outro: { template: 'outro-minimal', config: { brokerage: { value: 'Elm Realty' } } },
          speed_ramp: true,
        },
      });
      if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
      const preview = await createPreview(checked.normalized, photos.map((p) => `/samples/${p}`), {
        width,
        height,
        depthMaps: [null, null, null, '/samples/living-room-depth.png'],
      });
      // Every clip must draw: black frames of photos that failed would be fast and wrong.
      const notReady = photos.map((_, i) => preview.clip(i)).filter((c) => !c.ready);
      if (notReady.length) throw new Error(`clips not drawn: ${JSON.stringify(notReady)}`);
      const canvas = document.getElementById('c');
      const out = [];
      for (let run = 0; run < runs; run++) {
        const times = [];
        const start = performance.now();
        for (let n = 0; n < preview.frames; n++) {
          const t = performance.now();
          preview.drawFrame(canvas, n);
          times.push(performance.now() - t);
        }
        const seconds = (performance.now() - start) / 1000;
        times.sort((a, b) => a - b);
        out.push({ frames: preview.frames, fps: preview.frames / seconds, p95: times[Math.floor(times.length * 0.95)], worst: times.at(-1) });
      }
      preview.free();
      return out;
    }, { width, height, runs: Number(values.runs) });
    const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const row = {
      size: `${width}x${height}`,
      frames: runs[0].frames,
      fps: median(runs.map((r) => r.fps)),
      p95: median(runs.map((r) => r.p95)),
      worst: Math.max(...runs.map((r) => r.worst)),
    };
    rows.push(row);
    console.log(`preview ${row.size}: ${row.frames} frames, median ${row.fps.toFixed(1)} fps; p95 frame ${row.p95.toFixed(1)} ms, slowest ${row.worst.toFixed(1)} ms (${values.runs} runs)`);
  }
} finally {
  await browser.close();
  await site.close();
  rmSync(page, { recursive: true, force: true });
}
if (values['min-fps'] !== undefined) {
  const small = rows[0];
  if (small.fps < Number(values['min-fps'])) {
    console.error(`preview: ${small.fps.toFixed(1)} fps at ${small.size}, under the ${values['min-fps']} fps target`);
    process.exit(1);
  }
  console.log(`preview: ${small.size} at ${small.fps.toFixed(1)} fps meets the ${values['min-fps']} fps target`);
}
