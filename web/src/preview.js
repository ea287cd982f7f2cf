// The preview (docs/PREVIEW.md): the renderer's camera code, compiled to a second WebAssembly
// module that loads on first use, draws the video a create_video body describes into a
// <canvas> before anything is rendered. The validation module does not import this file.

const wasmUrl = new URL('../pkg-preview/stillreel_preview_bg.wasm', import.meta.url);
let loading;

/** Loads the preview module once (later calls share it). */
export function loadPreviewModule() {
  loading ??= (async () => {
    const glue = await import('../pkg-preview/stillreel_preview.js');
    if (typeof window === 'undefined' && typeof process === 'object' && process.versions?.node) {
      const { readFileSync } = await import('node:fs');
      glue.initSync({ module: readFileSync(wasmUrl) });
    } else {
      await glue.default({ module_or_path: wasmUrl });
    }
    return glue;
  })();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** The preview's default size: 640 × 360, or 360 × 640 for a portrait video. */
export function defaultPreviewSize(orientation) {
  return orientation === 'portrait' ? { width: 360, height: 640 } : { width: 640, height: 360 };
}

const isJpeg = (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
const isPng = (b) => b.length > 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47;

/** Bytes of a photo given as a Blob/File, an ArrayBuffer, a typed array or a URL. */
async function bytesOf(source) {
  if (source == null) return null;
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (typeof Blob !== 'undefined' && source instanceof Blob) return new Uint8Array(await source.arrayBuffer());
  if (typeof source === 'string' || source instanceof URL) {
    const response = await fetch(source);
    if (!response.ok) throw new Error(`could not fetch ${source}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  }
  throw new TypeError('a photo is a File or Blob, an ArrayBuffer, a Uint8Array or a URL');
}

/**
 * A photo the module does not decode itself (WebP, AVIF, GIF…) decoded by the browser and
 * handed over as PNG; `null` when the browser cannot decode it either (HEIC in Chromium).
 */
async function browserDecoded(bytes) {
  if (typeof createImageBitmap !== 'function' || typeof OffscreenCanvas !== 'function') return null;
  try {
    const bitmap = await createImageBitmap(new Blob([bytes]));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    canvas.getContext('2d').drawImage(bitmap, 0, 0);
    bitmap.close();
    const png = await canvas.convertToBlob({ type: 'image/png' });
    return new Uint8Array(await png.arrayBuffer());
  } catch {
    return null;
  }
}

// Per File or Blob (whose bytes cannot change): its fingerprint and, for a format the module
// does not decode, the browser's PNG of it. With the module's own cache of canvases, a rebuild
// after a caption or a transition changed reads and decodes nothing again. Bytes given as an
// ArrayBuffer or a typed array may change under the same object: worked out each time.
const fingerprints = new WeakMap();
const decodedPng = new WeakMap();
const fileBytes = new WeakMap();
function remembered(map, source, make) {
  if (!(typeof Blob !== 'undefined' && source instanceof Blob)) return Promise.resolve(make());
  if (!map.has(source)) map.set(source, Promise.resolve(make()));
  return map.get(source);
}

/**
 * Makes the preview of a video.
 * @param body the body `validateCreateVideo(body).normalized` returned
 * @param photos one entry per `image_inputs` row: File/Blob, ArrayBuffer, Uint8Array or URL
 * @param options `{ width, height, depthMaps }`; `depthMaps[i]` a grey PNG (same kinds as photos)
 */
export async function createPreview(body, photos = [], options = {}) {
  const glue = await loadPreviewModule();
  const size = options.width && options.height ? options : defaultPreviewSize(body?.orientation);
  const inner = new glue.VideoPreview(body, size.width, size.height);
  const preview = new Preview(inner, size.width, size.height, body, glue);
  try {
    await Promise.all(
      (body.image_inputs ?? []).map((_, i) =>
        photos[i] == null ? null : preview.setPhoto(i, photos[i], options.depthMaps?.[i]),
      ),
    );
  } catch (e) {
    preview.free();
    throw e;
  }
  return preview;
}

/** A video's preview: draws any frame of the video or of one clip into a canvas. */
export class Preview {
  #inner;
  #glue;
  #rgba;
  #image;
  #overlays;
  #notes = [];
  #playbacks = new Set();
  #fade;

  constructor(inner, width, height, body, glue) {
    this.#inner = inner;
    this.#glue = glue;
    this.width = width;
    this.height = height;
    this.body = body;
    this.#rgba = new Uint8Array(inner.rgbaLength());
    this.#overlays = inner.overlays();
    // Fixed by the body's clips, transition and branding: asked once, read every frame.
    const [start, frames] = inner.musicFade();
    this.#fade = { start, frames };
  }

  /** Frames of the previewed video (its branded render when the body asks for branding). */
  get frames() {
    return this.#inner.frames();
  }

  get fps() {
    return this.#inner.fps();
  }

  /** Seconds of the previewed video. */
  get duration() {
    return this.frames / this.fps;
  }

  /** Frames of one clip (150: 5 s at 30 fps). */
  get clipFrames() {
    return this.#inner.clipFrames();
  }

  /** The captions, intro, outro and effect names, laid out at the preview's size. */
  get overlays() {
    return this.#overlays;
  }

  /** Clip `index`'s state: `{ready, motion, depth, note}`. */
  clip(index) {
    const info = this.#inner.clipInfo(index);
    return this.#notes[index] ? { ...info, note: [this.#notes[index], info.note].filter(Boolean).join('; ') } : info;
  }

  /**
   * Gives clip `index` its photo (and optionally a depth map); resolves to its state. A photo
   * or map that cannot be read (a URL that does not answer) is the clip's note, not an error.
   */
  async setPhoto(index, photo, depthMap, { darkerIsNearer = false } = {}) {
    let file;
    let depth;
    try {
      [file, depth] = await Promise.all([
        remembered(fileBytes, photo, () => bytesOf(photo)),
        remembered(fileBytes, depthMap, () => bytesOf(depthMap)),
      ]);
    } catch (e) {
      this.#notes[index] = e.message;
      return this.clip(index);
    }
    let bytes = file;
    let note = null;
    if (file && !isJpeg(file) && !isPng(file)) {
      bytes = await remembered(decodedPng, photo, () => browserDecoded(file));
      note = bytes
        ? 'decoded by the browser (not JPEG or PNG): pixels may differ from the render'
        : 'this browser cannot decode the photo (HEIC?): no preview; the renderer decodes it';
    }
    this.#notes[index] = note;
    if (!bytes) return this.clip(index);
    const digest = await remembered(fingerprints, photo, () => this.#glue.fingerprint(file));
    this.#inner.setPhoto(index, bytes, depth ?? undefined, darkerIsNearer, digest);
    return this.clip(index);
  }

  /** What frame `frame` shows: `{moment, fades}` (see docs/PREVIEW.md). */
  moment(frame) {
    return this.#inner.moment(frame);
  }

  /**
   * The music's level at frame `frame` of the video: 1, then down to 0 in a straight line over
   * the renderer's fade-out (the outro card, else the last second). The renderer also
   * normalizes the music's loudness; the preview plays the file as it is.
   */
  musicGain(frame) {
    const { start, frames } = this.#fade;
    return frame < start ? 1 : Math.max(0, 1 - (frame - start) / frames);
  }

  /** `{start, frames}` of the music's fade-out, in frames of the video. */
  get musicFade() {
    return { ...this.#fade };
  }

  /** Frame `n` of clip `index` as the renderer's yuv420p bytes, or null when it cannot draw. */
  clipYuv(index, n) {
    const out = new Uint8Array(this.#inner.yuvLength());
    return this.#inner.drawClipYuv(index, n, out) ? out : null;
  }

  /** Draws frame `frame` of the video, with its overlays, into `canvas`. */
  drawFrame(canvas, frame) {
    this.#inner.drawFrame(frame, this.#rgba);
    const ctx = this.#put(canvas);
    const { moment, fades } = this.moment(frame);
    if (moment.kind === 'outro') {
      drawCard(ctx, this.#overlays.outro, fades.outro, this.width, this.height);
      return moment;
    }
    // The captions' opacities already follow the blend (through black with fade-black).
    this.#drawClipOverlay(ctx, moment.shot.clip, fades.caption);
    if (moment.next) this.#drawClipOverlay(ctx, moment.next.clip, fades.next_caption);
    if (fades.intro > 0) drawIntro(ctx, this.#overlays.intro, fades.intro, this.width);
    this.#labels(ctx, moment.shot.clip);
    return moment;
  }

  /** Draws frame `n` of clip `index`, with its caption, into `canvas`. */
  drawClipFrame(canvas, index, n) {
    this.#inner.drawClipFrame(index, n, this.#rgba);
    const ctx = this.#put(canvas);
    this.#drawClipOverlay(ctx, index, this.#inner.captionAlpha(n));
    this.#labels(ctx, index);
  }

  /**
   * Plays the video (or one clip: `{clip: i}`) into `canvas` in real time from frame `from`,
   * dropping frames rather than slowing down; `onFrame(n)` after each frame drawn. With
   * `audio` (an `<audio>` element holding the music; the whole video only) the music plays
   * along as the renderer lays it: from its start at frame 0, looped, fading out at the end.
   * Returns `{stop(), done}`; `done` resolves when it ends or stops (also when the preview is
   * freed).
   */
  play(canvas, { clip, from = 0, loop = false, onFrame, audio } = {}) {
    const total = clip === undefined ? this.frames : this.clipFrames;
    const music = clip === undefined && audio ? audio : null;
    let stopped = false;
    let resolve;
    const done = new Promise((r) => {
      resolve = r;
    });
    const playback = {
      stop: () => {
        stopped = true;
        music?.pause();
        this.#playbacks.delete(playback);
        resolve();
      },
      done,
    };
    this.#playbacks.add(playback);
    const first = Math.max(0, Math.min(from, total - 1));
    const start = performance.now() - (first / this.fps) * 1000;
    if (music) {
      music.loop = true;
      music.volume = this.musicGain(first);
      // Refused (no user gesture, a file the browser cannot play): the picture plays on.
      music.play().catch(() => {});
    }
    const tick = (now) => {
      if (stopped) return;
      let n = Math.floor(((now - start) / 1000) * this.fps);
      if (n >= total) {
        if (!loop) {
          // The renderer's fade has reached silence by the last sample.
          if (music) music.volume = 0;
          this.#show(canvas, clip, total - 1);
          onFrame?.(total - 1);
          playback.stop();
          return;
        }
        n %= total;
      }
      if (music) this.#follow(music, n);
      this.#show(canvas, clip, n);
      onFrame?.(n);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    return playback;
  }

  /** Keeps `music` at frame `n`'s place in the track (looped) and level. */
  #follow(music, n) {
    music.volume = this.musicGain(n);
    const length = music.duration;
    if (!Number.isFinite(length) || length <= 0) return;
    const want = (n / this.fps) % length;
    const off = Math.abs(music.currentTime - want);
    // Seek only when it drifted (a seek is audible), and not across the loop's seam.
    if (off > 0.25 && off < length - 0.25) music.currentTime = want;
  }

  /** Stops every playback and frees the module's memory for this preview. */
  free() {
    for (const playback of this.#playbacks) playback.stop();
    this.#inner.free();
  }

  #show(canvas, clip, n) {
    if (clip === undefined) this.drawFrame(canvas, n);
    else this.drawClipFrame(canvas, clip, n);
  }

  #put(canvas) {
    if (canvas.width !== this.width) canvas.width = this.width;
    if (canvas.height !== this.height) canvas.height = this.height;
    const ctx = canvas.getContext('2d');
    this.#image ??= new ImageData(this.width, this.height);
    this.#image.data.set(this.#rgba);
    ctx.putImageData(this.#image, 0, 0);
    return ctx;
  }

  #drawClipOverlay(ctx, index, alpha) {
    const caption = this.#overlays.clips[index]?.caption;
    if (caption && alpha > 0) drawCaption(ctx, caption, alpha);
  }

  // What the preview cannot draw, named on the frame: the effect, a model's clip, a clip
  // without a drawable photo.
  #labels(ctx, index) {
    const lines = [];
    const info = this.clip(index);
    if (!info.ready) lines.push(`clip ${index + 1}: ${info.note ?? 'no preview'}`);
    else if (info.note) lines.push(info.note);
    const effect = this.#overlays.clips[index]?.effect;
    if (effect) lines.push(`effect ${effect}: drawn by the renderer, not previewed`);
    if (this.#overlays.engine_note) lines.push(this.#overlays.engine_note);
    drawLabels(ctx, lines, this.width);
  }
}

function drawCaption(ctx, caption, alpha) {
  ctx.save();
  ctx.textBaseline = 'top';
  ctx.font = `bold ${caption.size}px "League Spartan", "DejaVu Sans", sans-serif`;
  for (const line of caption.lines) {
    ctx.globalAlpha = alpha * caption.plate_opacity;
    ctx.fillStyle = caption.plate_color;
    ctx.fillRect(...line.plate);
    ctx.globalAlpha = alpha;
    ctx.fillStyle = caption.text_color;
    ctx.fillText(line.text, line.x, line.y);
  }
  ctx.restore();
}

/** Dark text on a light background, white on a dark one (the renderer's choice for plates). */
function inkOn(background) {
  const hex = /^#?([0-9a-f]{6})$/i.exec(background ?? '')?.[1] ?? '000000';
  const linear = (i) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * linear(0) + 0.7152 * linear(2) + 0.0722 * linear(4);
  return luminance > 0.4 ? '#111111' : '#ffffff';
}

function fieldBoxes(ctx, fields, color) {
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.setLineDash([6, 4]);
  ctx.lineWidth = 1.5;
  for (const field of fields) {
    const [x, y, w, h] = field.rect;
    ctx.strokeRect(x, y, w, h);
    const size = Math.max(10, Math.min(h * 0.6, 28));
    ctx.font = `bold ${size}px "DejaVu Sans", sans-serif`;
    ctx.textBaseline = 'middle';
    ctx.fillText(field.value ?? `{${field.key}}`, x + 4, y + h / 2, w - 8);
  }
  ctx.setLineDash([]);
}

function drawIntro(ctx, intro, alpha, width) {
  if (!intro) return;
  ctx.save();
  ctx.globalAlpha = alpha;
  if (intro.band) {
    const [top, bottom] = intro.band;
    ctx.globalAlpha = alpha * 0.75;
    ctx.fillStyle = intro.background ?? '#000000';
    ctx.fillRect(0, top, width, bottom - top);
    ctx.globalAlpha = alpha;
    ctx.fillStyle = intro.accent ?? '#ffffff';
    if (top > 0) ctx.fillRect(0, top, width, 3);
  }
  fieldBoxes(ctx, intro.fields, inkOn(intro.background));
  if (intro.fields.length === 0) unknownTemplate(ctx, 'intro', intro.name, width);
  ctx.restore();
}

function drawCard(ctx, outro, alpha, width, height) {
  if (!outro) return;
  ctx.save();
  ctx.globalAlpha = alpha;
  ctx.fillStyle = outro.background ?? '#000000';
  ctx.fillRect(0, 0, width, height);
  const bar = Math.max(2, Math.round(height * 0.015));
  ctx.fillStyle = outro.accent ?? '#ffffff';
  ctx.fillRect(0, height - bar, width, bar);
  fieldBoxes(ctx, outro.fields, inkOn(outro.background));
  if (outro.fields.length === 0) unknownTemplate(ctx, 'outro', outro.name, width);
  ctx.restore();
}

// A deployment's own template: the preview knows its timing, not its layout.
function unknownTemplate(ctx, slot, name, width) {
  drawLabels(ctx, [`${slot} ${name}: this deployment's own template, drawn by the renderer`], width, 0.5);
}

function drawLabels(ctx, lines, width, at = 0) {
  if (lines.length === 0) return;
  ctx.save();
  const size = Math.max(11, Math.round(width / 48));
  ctx.font = `${size}px "DejaVu Sans", sans-serif`;
  ctx.textBaseline = 'top';
  lines.forEach((text, i) => {
    const y = 6 + i * (size + 8) + at * ctx.canvas.height;
    const w = Math.min(width - 12, ctx.measureText(text).width + 12);
    ctx.fillStyle = 'rgba(0, 0, 0, 0.7)';
    ctx.fillRect(6, y, w, size + 6);
    ctx.fillStyle = '#ffd166';
    ctx.fillText(text, 12, y + 3, width - 24);
  });
  ctx.restore();
}
