// The preview of the video being made (docs/PREVIEW.md): the package's `createPreview` (the
// renderer's camera compiled to WebAssembly, loaded on first use) draws every photo row's clip
// and the whole video before "Create" is pressed. Rebuilt whenever the form changes; photos
// are read from the file when uploaded from this computer, else fetched once per URL from this
// server (the form's CSP allows no other origin: another site's photo is named, not drawn).
// The music (`audio_url`) plays along with the whole video from an <audio> element (the CSP's
// media-src allows any http(s) origin, as it does for the finished video).
import { createPreview } from './stillreel/src/browser.js';
import { el } from './fields.js';

const photos = new Map();

/** The photo at `url` (a Blob: the package reads and fingerprints it once), fetched once;
 * rejects with a sentence for the row. */
function photoBytes(url) {
  if (!photos.has(url)) {
    const load = fetch(url)
      .then((r) => {
        if (!r.ok) throw new Error(`the photo could not be fetched for the preview (HTTP ${r.status})`);
        return r.blob();
      })
      .catch((e) => {
        photos.delete(url);
        throw e instanceof TypeError
          ? new Error('the preview reads photos uploaded here; this one is on another site (upload it to preview it)')
          : e;
      });
    photos.set(url, load);
  }
  return photos.get(url);
}

/** A photo uploaded from this computer, for its URL: the preview reads the file itself. */
export function rememberPhoto(url, file) {
  photos.set(url, Promise.resolve(file));
}

const clock = (frame, fps) => `${(frame / fps).toFixed(1)} s`;

/**
 * The preview card (`#video-preview`) and the players of the photo rows (`.clip-canvas` in
 * `#images`). `update(body)` takes a normalized create_video body, or `null` with a reason.
 */
export function previewer() {
  const canvas = document.getElementById('preview-canvas');
  const playButton = document.getElementById('preview-play');
  const scrub = document.getElementById('preview-scrub');
  const time = document.getElementById('preview-time');
  const status = document.getElementById('preview-status');
  const audio = document.getElementById('preview-audio');
  let preview = null;
  let lines = [];
  let music = '';
  // Why the music element could not play `music` (null: no error).
  let musicError = null;
  let generation = 0;
  let playback = null;
  let frame = 0;
  let rowPlayback = null;
  let timer;
  // Why each row's photo could not be read, for the preview shown now.
  let failures = [];

  function setStatus(next) {
    lines = next;
    status.replaceChildren(...lines.map((text) => el('li', { text })));
  }

  /** Loads `url` (the body's `audio_url`, or '' for none) into the music element once. */
  function setMusic(url) {
    if (url === music) return;
    music = url;
    musicError = null;
    audio.pause();
    if (url) audio.src = url;
    else audio.removeAttribute('src');
    audio.load();
  }
  const musicLine = () => (musicError
    ? 'Music: this browser could not play the file; the preview is silent'
    : `Music: plays along, looped and fading out over the last ${clock(preview.musicFade.frames, preview.fps)} (the render also evens its loudness)`);
  audio.addEventListener('error', () => {
    if (!music || !audio.src) return;
    musicError = audio.error?.message || 'unplayable';
    if (preview) setStatus(lines.map((line) => (line.startsWith('Music: ') ? musicLine() : line)));
  });

  function show(n) {
    if (!preview) return;
    frame = Math.min(n, preview.frames - 1);
    preview.drawFrame(canvas, frame);
    scrub.value = String(frame);
    time.textContent = `${clock(frame, preview.fps)} / ${clock(preview.frames, preview.fps)}`;
  }

  function stop() {
    playback?.stop();
    playback = null;
    playButton.textContent = 'Play';
    canvas.dataset.playing = 'false';
  }

  function play() {
    if (!preview) return;
    stop();
    // From where the scrubber is (from the start once it reached the end).
    const from = frame >= preview.frames - 1 ? 0 : frame;
    const mine = preview.play(canvas, {
      from,
      audio: music ? audio : undefined,
      onFrame: (n) => {
        frame = n;
        scrub.value = String(n);
        time.textContent = `${clock(n, preview.fps)} / ${clock(preview.frames, preview.fps)}`;
      },
    });
    playback = mine;
    mine.done.then(() => { if (playback === mine) stop(); });
    playButton.textContent = 'Pause';
    canvas.dataset.playing = 'true';
  }

  playButton.addEventListener('click', () => (playback ? stop() : play()));
  scrub.addEventListener('input', () => { stop(); show(Number(scrub.value)); });

  /** Draws every row's first frame, and wires its player. */
  function drawRows() {
    for (const row of document.querySelectorAll('#images .image-row')) {
      const i = Number(row.dataset.index);
      const small = row.querySelector('.clip-canvas');
      const button = row.querySelector('.clip-play');
      if (!small || !button) continue;
      const info = preview?.clip(i);
      row.dataset.preview = info?.ready ? 'ready' : 'none';
      button.disabled = !info?.ready;
      small.title = failures[i] ?? info?.note ?? (info?.ready ? `${info.motion}${info.depth ? ' with depth' : ''}` : '');
      if (info?.ready) preview.drawClipFrame(small, i, 0);
      else small.getContext('2d')?.clearRect(0, 0, small.width, small.height);
    }
  }

  /** Plays row `i`'s clip into its own canvas (hover or its play button). */
  function playRow(row) {
    const i = Number(row.dataset.index);
    const small = row.querySelector('.clip-canvas');
    if (!preview?.clip(i).ready) return;
    rowPlayback?.stop();
    rowPlayback = preview.play(small, { clip: i });
    small.dataset.playing = 'true';
    rowPlayback.done.then(() => { small.dataset.playing = 'false'; });
  }

  function stopRow(row) {
    rowPlayback?.stop();
    rowPlayback = null;
    const i = Number(row.dataset.index);
    if (preview?.clip(i).ready) preview.drawClipFrame(row.querySelector('.clip-canvas'), i, 0);
  }

  async function rebuild(body, reason) {
    const mine = ++generation;
    if (!body) {
      // The last preview stays on screen, still, under the reason it is not updated.
      stop();
      rowPlayback?.stop();
      setStatus([reason]);
      canvas.dataset.state = 'waiting';
      return;
    }
    // This rebuild's own notes: an older one finishing late must not write over them.
    const unread = [];
    const files = await Promise.all(body.image_inputs.map((input, i) => {
      if (!/^https?:\/\//.test(input.image_url) || input.image_url.startsWith('https://preview.invalid/')) return null;
      return photoBytes(input.image_url).catch((e) => { unread[i] = e.message; return null; });
    }));
    if (mine !== generation) return;
    let next;
    try {
      next = await createPreview(body, files);
    } catch (e) {
      if (mine !== generation) return;
      stop();
      rowPlayback?.stop();
      setStatus([`The preview failed: ${e.message}`]);
      canvas.dataset.state = 'failed';
      return;
    }
    if (mine !== generation) { next.free(); return; }
    const wasPlaying = Boolean(playback);
    stop();
    rowPlayback?.stop();
    preview?.free();
    preview = next;
    failures = unread;
    scrub.max = String(preview.frames - 1);
    const notes = body.image_inputs.flatMap((_, i) => {
      const info = preview.clip(i);
      const why = failures[i] ?? (info.ready ? info.note : info.note ?? 'no preview');
      return why ? [`Photo ${i + 1}: ${why}`] : [];
    });
    setMusic(body.audio_url ?? '');
    const sound = music ? [musicLine()] : [];
    setStatus([`${clock(preview.frames, preview.fps)} · ${body.image_inputs.length} clip(s)`
      + `${body.branding ? ', branded render' : ''}`, ...sound, ...notes]);
    canvas.dataset.state = 'ready';
    canvas.dataset.revision = String(mine);
    show(Math.min(frame, preview.frames - 1));
    drawRows();
    if (wasPlaying) play();
  }

  return {
    /** Rebuilds the preview from `body` (normalized), soon: changes come a keystroke at a time. */
    update(body, reason) {
      clearTimeout(timer);
      timer = setTimeout(() => rebuild(body, reason), 120);
    },
    /** A photo row's player: a small canvas with a play button, playing on hover too. */
    rowPlayer() {
      const small = el('canvas', { class: 'clip-canvas', width: '160', height: '90', 'aria-label': 'Clip preview' });
      const button = el('button', { type: 'button', class: 'clip-play icon', title: 'Play this clip', 'aria-label': 'Play this clip', text: '▶', disabled: true });
      const box = el('div', { class: 'clip-player' }, small, button);
      button.addEventListener('click', () => playRow(box.closest('.image-row')));
      small.addEventListener('mouseenter', () => playRow(box.closest('.image-row')));
      small.addEventListener('mouseleave', () => stopRow(box.closest('.image-row')));
      return box;
    },
    /** Draws the rows again after they were re-made (a motion or an effect changed). */
    redrawRows() {
      if (preview) drawRows();
    },
  };
}
