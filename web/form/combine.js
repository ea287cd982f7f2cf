// The "Combine clips" tab: clips of the account's earlier videos (remembered by this browser),
// picked in order, with combine's rules (the body's and the cross-clip one) checked live.
import { checkCombineClips, validateCombineVideoClips } from './stillreel/src/browser.js';
import { api, history } from './session.js';
import { brandingBody, newBranding, renderBranding } from './branding.js';
import { el, segmented, showErrors, summary, trackTouched } from './fields.js';
import { trackVideo } from './results.js';
import { kitBox } from './kits.js';

export function combineTab(ctx) {
  const root = document.getElementById('panel-combine');
  const $ = (id) => document.getElementById(id);
  const touched = new Set();
  let showAll = false;
  const clips = new Map(); // clip uuid → clip record
  const state = {
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
    const homeless = showErrors(root, errors, touched, showAll || state.selected.length > 0);
    summary($('combine-summary'), errors);
    $('combine-show').hidden = errors.length === 0 || showAll;
    $('combine-submit').disabled = errors.length > 0 || ctx.busy;
    if (showAll && homeless.length) ctx.banner(homeless.map((e) => `${e.field}: ${e.message}`).join('\n'));
    $('clip-count').textContent = `${state.selected.length} / ${ctx.options().clip_limit ?? 20} clips`;
    return errors;
  }

  function renderSelected() {
    const list = state.selected.map((id, i) => {
      const clip = clips.get(id);
      const path = `video_clip_uuids[${i}]`;
      const move = (to) => { state.selected.splice(i, 1); state.selected.splice(to, 0, id); renderSelected(); };
      return el('li', { 'data-field': path, 'data-clip': id },
        el('img', { src: clip?.image_url ?? '', alt: '' }),
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

  async function loadLibrary() {
    const known = history.list();
    if (!known.length) {
      $('library').replaceChildren(el('p', { class: 'empty', text: 'No videos yet. Create one on the first tab; its clips show up here.' }));
      return;
    }
    $('library').replaceChildren(el('p', { class: 'empty', text: 'Loading…' }));
    const videos = await Promise.all(known.slice(0, 20).map((v) => api().getVideo(v.uuid).catch(() => null)));
    const cards = videos.filter(Boolean).map((video) => {
      for (const clip of video.video_clips) clips.set(clip.uuid, clip);
      return el('article', { class: 'video-card', 'data-video': video.uuid },
        el('header', {},
          el('span', { text: `${new Date(video.created_at).toLocaleString()} · ${video.orientation} ${video.resolution} · ${video.ai_engine}` }),
          el('span', { text: video.status.replace('_', ' ') })),
        video.video_clips.length
          ? el('div', { class: 'clips' }, ...video.video_clips.map((clip, i) => el('button', {
            type: 'button', class: 'clip', 'data-clip': clip.uuid, title: 'Add this clip', onclick: () => pick(clip),
          }, el('img', { src: clip.image_url, alt: '', loading: 'lazy' }), el('span', { text: `Clip ${i + 1} · ${clip.camera_motion}` }))))
          : el('p', { class: 'empty', text: 'Clips appear once they are rendered.' }));
    });
    $('library').replaceChildren(...(cards.length ? cards : [el('p', { class: 'empty', text: 'Your earlier videos could not be loaded (check the API key).' })]));
    renderSelected();
  }

  function renderSettings() {
    segmented($('c-orientation'), 'c-orientation', ['landscape', 'portrait'], state.orientation, (v) => { state.orientation = v; validate(); });
    segmented($('c-resolution'), 'c-resolution', ['720p', '1080p'], state.resolution, (v) => { state.resolution = v; validate(); });
    $('c-audio').oninput = () => { state.audio = $('c-audio').value; };
    $('c-webhook').oninput = () => { state.webhook = $('c-webhook').value; };
    $('c-project').onchange = () => { state.project = $('c-project').value; };
  }

  async function submit() {
    if (validate().length) return;
    ctx.busy = true;
    $('combine-submit').disabled = true;
    $('combine-submit').textContent = 'Sending…';
    try {
      const video = await api().combineVideoClips(body());
      history.add(video.uuid);
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
  $('combine-show').addEventListener('click', () => { showAll = true; validate(); });
  $('reload-videos').addEventListener('click', loadLibrary);

  return {
    refresh() {
      renderSettings();
      renderBranding($('combine-branding'), state.branding, ctx.templates(), validate,
        (rerender) => kitBox(ctx, state.branding, rerender, validate));
      renderSelected();
    },
    load: loadLibrary,
    setProjects(projects) { ctx.fillProjects($('c-project'), projects, state.project); },
  };
}
