// The "Combine clips" tab: clips of the account's videos (GET /get_videos, a page at a time,
// newest first, with posters), picked in order, with combine's rules (the body's and the
// cross-clip one) checked live.
import { checkCombineClips, validateCombineVideoClips } from './stillreel/src/browser.js';
import { api, apiKey } from './session.js';
import { brandingBody, newBranding, renderBranding } from './branding.js';
import { el, firstInvalid, segmented, showErrors, summary, trackTouched } from './fields.js';
import { trackVideo } from './results.js';
import { kitBox } from './kits.js';
import { TRANSITIONS, errorText, joinedSeconds, statusText, videoName } from './videos.js';

const PAGE = 12;

/** A clip's still: its thumbnail, else (a clip from before thumbnails) its photo. */
function clipImage(clip, attrs = {}) {
  const img = el('img', { src: clip?.thumbnail_url ?? clip?.image_url ?? '', alt: '', ...attrs });
  img.addEventListener('error', () => { if (clip?.image_url && img.src !== clip.image_url) img.src = clip.image_url; }, { once: true });
  return img;
}

export function combineTab(ctx) {
  const root = document.getElementById('panel-combine');
  const $ = (id) => document.getElementById(id);
  const touched = new Set();
  let showAll = false;
  const clips = new Map(); // clip uuid → clip record
  const listed = new Set(); // video uuids on the page
  let cursor = null;
  const state = {
    title: '',
    transition: 'cut',
    selected: [], // clip uuids, in play order
    orientation: 'landscape',
    resolution: '720p',
    audio: '',
    webhook: '',
    project: '',
    branding: newBranding(),
  };

  function body() {
    const out = { video_clip_uuids: state.selected, orientation: state.orientation, resolution: state.resolution };
    if (state.title.trim()) out.title = state.title.trim();
    if (state.transition !== 'cut') out.transition = state.transition;
    if (state.audio.trim()) out.audio_url = state.audio.trim();
    if (state.webhook.trim()) out.webhook_url = state.webhook.trim();
    if (state.project) out.project = state.project;
    const branding = brandingBody(state.branding, ctx.templates());
    if (branding) out.branding = branding;
    return out;
  }

  function validate() {
    const result = validateCombineVideoClips(body(), ctx.options());
    let errors = result.errors;
    // The cross-clip rule needs the clips' records, which this page has: check it too.
    const facts = state.selected.map((id) => clips.get(id)).filter(Boolean);
    if (result.ok && facts.length === state.selected.length) {
      errors = checkCombineClips(state.orientation, state.resolution, facts).errors;
    }
    const acted = showAll || touched.size > 0 || state.selected.length > 0;
    const homeless = showErrors(root, acted ? errors : [], touched, acted);
    summary($('combine-summary'), errors, acted);
    $('combine-submit').dataset.ready = String(errors.length === 0);
    $('combine-submit').disabled = ctx.busy;
    if (showAll && homeless.length) ctx.banner(homeless.map((e) => `${e.field}: ${e.message}`).join('\n'));
    $('clip-count').textContent = `${state.selected.length} / ${ctx.options().clip_limit ?? 20} clips`;
    $('c-title-count').textContent = `${[...state.title.trim()].length} / 120`;
    const seconds = joinedSeconds(state.selected.length, state.transition);
    $('c-transition-hint').textContent = `${TRANSITIONS.find((t) => t.value === state.transition)?.hint ?? ''}`
      + (state.selected.length ? ` ${state.selected.length} clip(s): ${seconds.toFixed(1)} s.` : '');
    return errors;
  }

  function renderSelected() {
    const list = state.selected.map((id, i) => {
      const clip = clips.get(id);
      const path = `video_clip_uuids[${i}]`;
      const move = (to) => { state.selected.splice(i, 1); state.selected.splice(to, 0, id); renderSelected(); };
      return el('li', { 'data-field': path, 'data-clip': id },
        clipImage(clip),
        el('span', { class: 'meta', text: clip ? `${i + 1}. ${clip.camera_motion} · ${clip.orientation} · ${clip.resolution} · ${clip.ai_engine}` : id }),
        el('button', { type: 'button', class: 'icon', 'aria-label': 'Move up', text: '↑', disabled: i === 0, onclick: () => move(i - 1) }),
        el('button', { type: 'button', class: 'icon', 'aria-label': 'Move down', text: '↓', disabled: i === state.selected.length - 1, onclick: () => move(i + 1) }),
        el('button', { type: 'button', class: 'icon', 'aria-label': 'Remove clip', text: '✕', onclick: () => { state.selected.splice(i, 1); renderSelected(); } }),
        el('small', { class: 'err', 'data-error-for': path }));
    });
    $('selected').replaceChildren(...(list.length ? list : [el('li', { class: 'empty', text: 'No clips yet: pick some above.' })]));
    validate();
  }

  function pick(clip) {
    if (state.selected.length === 0) {
      // The first clip sets the frame: its orientation and resolution are the only ones that fit.
      state.orientation = clip.orientation;
      state.resolution = clip.resolution;
      renderSettings();
    }
    state.selected.push(clip.uuid);
    renderSelected();
  }

  /** One video of the account: poster, name, status and its clips to pick. */
  function videoCard(video) {
    for (const clip of video.video_clips) clips.set(clip.uuid, clip);
    const progress = video.status === 'complete' ? 100 : (video.progress ?? 0);
    return el('article', { class: 'video-card pick-card', 'data-video': video.uuid, 'data-status': video.status },
      el('header', {},
        video.poster_url ? el('img', { class: 'mini-poster', src: video.poster_url, alt: '', loading: 'lazy' }) : null,
        el('div', { class: 'grow' },
          el('strong', { class: 'name', text: videoName(video) }),
          el('span', { class: 'muted', text: ` · ${new Date(video.created_at).toLocaleString()} · ${video.orientation} ${video.resolution} · ${video.ai_engine}` })),
        el('span', { class: 'state', text: statusText(video.status, progress) })),
      video.error ? el('p', { class: 'error', text: errorText(video.error) }) : null,
      video.video_clips.length
        ? el('div', { class: 'clips' }, ...video.video_clips.map((clip, i) => el('button', {
          type: 'button', class: 'clip', 'data-clip': clip.uuid, title: 'Add this clip', onclick: () => pick(clip),
        }, clipImage(clip, { loading: 'lazy' }), el('span', { text: `Clip ${i + 1} · ${clip.camera_motion}` }))))
        // A failed video without clips says so in its header and error line; nothing to pick.
        : video.status === 'error' ? null : el('p', { class: 'empty', text: 'Clips appear once they are rendered.' }));
  }

  /** The account's videos from the server, a page at a time (`more` appends the next page). */
  async function loadLibrary(more = false) {
    if (!apiKey.get()) {
      $('library').replaceChildren(el('p', { class: 'empty', text: 'Connect with your API key to see your videos.' }));
      return;
    }
    if (!more) {
      cursor = null;
      listed.clear();
      $('library').replaceChildren(el('p', { class: 'empty', text: 'Loading…' }));
    }
    try {
      const page = await api().getVideos({ limit: PAGE, cursor: cursor ?? undefined });
      if (!more) $('library').replaceChildren();
      const fresh = page.videos.filter((v) => !listed.has(v.uuid));
      for (const v of fresh) listed.add(v.uuid);
      $('library').append(...fresh.map(videoCard));
      cursor = page.next_cursor;
      $('combine-more').hidden = !cursor;
      if (!listed.size) {
        $('library').replaceChildren(el('p', { class: 'empty', text: 'No videos yet. Create one on the first tab; its clips show up here.' }));
      }
    } catch (err) {
      $('library').replaceChildren(el('p', { class: 'empty', text: `Your videos could not be loaded: ${err.message}` }));
    }
    renderSelected();
  }

  function renderSettings() {
    segmented($('c-orientation'), 'c-orientation', ['landscape', 'portrait'], state.orientation, (v) => { state.orientation = v; validate(); });
    segmented($('c-resolution'), 'c-resolution', ['720p', '1080p'], state.resolution, (v) => { state.resolution = v; validate(); });
    segmented($('c-transition'), 'c-transition', TRANSITIONS.map((t) => t.value), state.transition, (v) => { state.transition = v; validate(); },
      Object.fromEntries(TRANSITIONS.map((t) => [t.value, t.label])));
    $('c-title').oninput = () => { state.title = $('c-title').value; };
    $('c-audio').oninput = () => { state.audio = $('c-audio').value; };
    $('c-webhook').oninput = () => { state.webhook = $('c-webhook').value; };
    $('c-project').onchange = () => { state.project = $('c-project').value; };
  }

  async function submit() {
    if (validate().length) {
      showAll = true;
      validate();
      firstInvalid(root)?.focus();
      return;
    }
    ctx.busy = true;
    $('combine-submit').disabled = true;
    $('combine-submit').textContent = 'Sending…';
    try {
      const video = await api().combineVideoClips(body());
      ctx.banner('');
      trackVideo($('combine-result'), video);
    } catch (err) {
      ctx.serverError(err, root, touched);
    } finally {
      ctx.busy = false;
      $('combine-submit').textContent = 'Combine clips';
      validate();
    }
  }

  trackTouched(root, touched, validate);
  $('combine-submit').addEventListener('click', submit);
  $('reload-videos').addEventListener('click', () => loadLibrary(false));
  $('combine-more').addEventListener('click', () => loadLibrary(true));

  return {
    refresh() {
      renderSettings();
      renderBranding($('combine-branding'), state.branding, ctx.templates(), validate,
        (rerender) => kitBox(ctx, state.branding, rerender, validate));
      renderSelected();
    },
    load: () => loadLibrary(false),
    setProjects(projects) { ctx.fillProjects($('c-project'), projects, state.project); },
  };
}
