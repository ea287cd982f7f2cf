// The "Create video" tab: photo rows, video settings, branding; validated on every keystroke
// by the wasm module, sent only when the module finds nothing wrong.
import { cameraMotions, sanitizeWordDropText, validateCreateVideo } from './stillreel/src/browser.js';
import { api } from './session.js';
import { brandingBody, newBranding, renderBranding } from './branding.js';
import { el, firstInvalid, segmented, showErrors, summary, trackTouched } from './fields.js';
import { trackVideo } from './results.js';
import { kitBox } from './kits.js';
import { drafts, results } from './drafts.js';
import { gallery, vfxPreview } from './previews.js';
import { TRANSITIONS, joinedSeconds } from './videos.js';
import { previewer } from './preview.js';

/** `image_inputs[].fit` (docs/API-DESIGN.md, Framing). */
const FITS = [
  { value: 'auto', label: 'Auto', hint: 'Smart crop, or the whole photo over a blurred fill when a crop would cut most of it.' },
  { value: 'smart', label: 'Smart crop', hint: 'Covers the frame, the crop placed where the photo\'s content is.' },
  { value: 'cover', label: 'Centre crop', hint: 'Covers the frame, cut evenly from both sides.' },
  { value: 'contain-blur', label: 'Whole photo', hint: 'The whole photo over a blurred, dimmed fill of itself.' },
];

export function createTab(ctx) {
  const root = document.getElementById('panel-create');
  const $ = (id) => document.getElementById(id);
  const touched = new Set();
  let showAll = false;
  let last = { ok: false, errors: [] };
  const preview = previewer();
  const state = drafts.load({
    images: [newImage()],
    orientation: 'landscape',
    resolution: '720p',
    engine: '',
    title: '',
    transition: 'cut',
    audio: '',
    webhook: '',
    project: '',
    branding: newBranding(),
  });

  function newImage() {
    return { url: '', motion: 'auto', vfx: '', config: {}, fit: 'auto', caption: '', captionStyle: 'label' };
  }

  function body() {
    const image_inputs = state.images.map((img) => {
      const input = { image_url: img.url.trim(), camera_motion: img.motion };
      // Defaults are left out, as the server's own echo leaves them (a draft from before these
      // fields has none).
      if (img.fit && img.fit !== 'auto') input.fit = img.fit;
      if ((img.caption ?? '').trim()) {
        input.caption = { text: img.caption };
        if (img.captionStyle && img.captionStyle !== 'label') input.caption.style = img.captionStyle;
      }
      if (img.vfx) {
        const info = ctx.vfx().find((v) => v.type === img.vfx);
        input.vfx = { type: img.vfx };
        if (info?.config_fields.length) {
          const config = {};
          for (const f of info.config_fields) {
            const value = img.config[f.key] ?? f.default ?? '';
            if (value !== '' || f.required) config[f.key] = value;
          }
          input.vfx.config = config;
        }
      }
      return input;
    });
    const out = { image_inputs, orientation: state.orientation, resolution: state.resolution };
    if (state.title.trim()) out.title = state.title.trim();
    if (state.transition !== 'cut') out.transition = state.transition;
    if (state.engine) out.ai_engine = state.engine;
    if (state.audio.trim()) out.audio_url = state.audio.trim();
    if (state.webhook.trim()) out.webhook_url = state.webhook.trim();
    if (state.project) out.project = state.project;
    const branding = brandingBody(state.branding, ctx.templates());
    if (branding) out.branding = branding;
    return out;
  }

  function validate() {
    drafts.save(state);
    last = validateCreateVideo(body(), ctx.options());
    // Nothing is called wrong before the user has done something: typed, or pressed Create.
    const acted = showAll || touched.size > 0;
    const homeless = showErrors(root, acted ? last.errors : [], touched, showAll);
    summary($('create-summary'), last.errors, acted);
    $('create-submit').dataset.ready = String(last.ok);
    $('create-submit').disabled = ctx.busy;
    if (showAll && homeless.length) ctx.banner(homeless.map((e) => `${e.field}: ${e.message}`).join('\n'));
    $('image-count').textContent = `${state.images.length} / ${ctx.options().clip_limit ?? 20} photos`;
    $('title-count').textContent = `${[...state.title.trim()].length} / 120`;
    const seconds = joinedSeconds(state.images.length, state.transition);
    $('transition-hint').textContent = `${TRANSITIONS.find((t) => t.value === state.transition)?.hint ?? ''} `
      + `${state.images.length} photo(s): ${seconds.toFixed(1)} s.`;
    preview.update(...previewBody());
    return last;
  }

  /** The body the preview draws: the form's own when valid; rows without a photo yet stand in
   * with a placeholder address (drawn as "no photo"), so the rest previews meanwhile. */
  function previewBody() {
    if (last.ok) return [last.normalized];
    const draft = body();
    draft.image_inputs = draft.image_inputs.map((input, i) =>
      (input.image_url ? input : { ...input, image_url: `https://preview.invalid/photo-${i + 1}.jpg` }));
    const again = validateCreateVideo(draft, ctx.options());
    if (again.ok) return [again.normalized];
    const first = again.errors[0];
    return [null, `The preview waits for the form: ${first.field}: ${first.message}`];
  }

  function imageRow(img, i) {
    const node = document.getElementById('image-row').content.firstElementChild.cloneNode(true);
    const base = `image_inputs[${i}]`;
    node.dataset.index = String(i);
    node.querySelector('.label-num').textContent = `Photo ${i + 1} URL`;
    const url = node.querySelector('.f-url');
    url.dataset.field = `${base}.image_url`;
    url.value = img.url;
    // The row's clip, drawn by the preview (docs/PREVIEW.md) where the photo's still was.
    node.querySelector('.clip-slot').replaceWith(preview.rowPlayer());
    url.addEventListener('input', () => { img.url = url.value; });

    const motion = node.querySelector('.f-motion');
    motion.dataset.field = `${base}.camera_motion`;
    const engine = ctx.engine(state.engine);
    const allowed = cameraMotions(engine);
    if (!allowed.includes(img.motion)) {
      // Said out loud: a motion the engine cannot draw is reset, not silently swapped.
      img.note = `${img.motion} is not available with engine ${engine}; the motion was reset to auto`;
      img.motion = 'auto';
    }
    motion.replaceChildren(...allowed.map((m) => el('option', { value: m, text: m, selected: m === img.motion })));
    motion.addEventListener('change', () => { img.motion = motion.value; img.note = ''; renderImages(); });
    if (img.note) {
      motion.parentElement.append(el('small', { class: 'hint motion-reset', role: 'status', text: img.note }));
    }

    const vfx = node.querySelector('.f-vfx');
    vfx.dataset.field = `${base}.vfx.type`;
    vfx.replaceChildren(el('option', { value: '', text: 'None' }),
      ...ctx.vfx().map((v) => el('option', {
        value: v.type,
        text: v.available ? v.type : `${v.type} (not on this server)`,
        disabled: !v.available && v.type !== img.vfx,
        selected: v.type === img.vfx,
      })));
    vfx.addEventListener('change', () => { img.vfx = vfx.value; img.config = {}; renderImages(); });

    const fit = node.querySelector('.f-fit');
    fit.dataset.field = `${base}.fit`;
    fit.replaceChildren(...FITS.map((f) => el('option', { value: f.value, text: f.label, selected: f.value === (img.fit ?? 'auto') })));
    fit.title = FITS.find((f) => f.value === (img.fit ?? 'auto'))?.hint ?? '';
    fit.addEventListener('change', () => { img.fit = fit.value; fit.title = FITS.find((f) => f.value === fit.value)?.hint ?? ''; });

    const caption = node.querySelector('.f-caption');
    caption.dataset.field = `${base}.caption.text`;
    caption.value = img.caption ?? '';
    caption.addEventListener('input', () => { img.caption = caption.value; });
    const captionStyle = node.querySelector('.f-caption-style');
    captionStyle.dataset.field = `${base}.caption.style`;
    captionStyle.replaceChildren(...['label', 'facts'].map((v) => el('option', { value: v, text: v, selected: v === (img.captionStyle ?? 'label') })));
    captionStyle.addEventListener('change', () => { img.captionStyle = captionStyle.value; });

    const config = node.querySelector('.vfx-config');
    config.dataset.field = `${base}.vfx.config`;
    const info = ctx.vfx().find((v) => v.type === img.vfx);
    if (info) config.before(vfxPreview(info));
    for (const f of info?.config_fields ?? []) {
      const path = `${base}.vfx.config.${f.key}`;
      const label = f.key.replace(/_/g, ' ');
      let input;
      const extra = [];
      if (f.type === 'choice') {
        input = el('select', { 'data-field': path },
          ...f.values.map((v) => el('option', { value: v, text: v.replace(/_/g, ' '), selected: v === (img.config[f.key] ?? f.default) })));
        input.addEventListener('change', () => { img.config[f.key] = input.value; });
      } else {
        input = el('input', { 'data-field': path, value: img.config[f.key] ?? '', placeholder: 'Just listed' });
        const counter = el('small', { class: 'counter', 'data-counter': path });
        const count = () => {
          const s = sanitizeWordDropText(input.value);
          counter.textContent = `${s.length} / ${s.max}`;
          counter.classList.toggle('over', s.length > s.max);
          counter.title = s.text ? `Shown as “${s.text}”` : '';
        };
        input.addEventListener('input', () => { img.config[f.key] = input.value; count(); });
        count();
        extra.push(counter);
      }
      config.append(el('label', { class: 'field' },
        el('span', { text: `${label[0].toUpperCase()}${label.slice(1)}` }), input, ...extra,
        el('small', { class: 'err', 'data-error-for': path })));
    }

    node.querySelector('.up').disabled = i === 0;
    node.querySelector('.down').disabled = i === state.images.length - 1;
    node.querySelector('.remove').disabled = state.images.length === 1;
    const move = (to) => {
      const [item] = state.images.splice(i, 1);
      state.images.splice(to, 0, item);
      renderImages();
    };
    node.querySelector('.up').addEventListener('click', () => move(i - 1));
    node.querySelector('.down').addEventListener('click', () => move(i + 1));
    node.querySelector('.remove').addEventListener('click', () => { state.images.splice(i, 1); renderImages(); });
    // Error slots are the `.err` right after each input, keyed by its path.
    for (const input of node.querySelectorAll('.f-url, .f-motion, .f-vfx, .f-fit, .f-caption, .f-caption-style')) {
      input.parentElement.querySelector('.err').dataset.errorFor = input.dataset.field;
    }
    return node;
  }

  function renderImages() {
    $('images').replaceChildren(...state.images.map(imageRow));
    preview.redrawRows();
    validate();
  }

  function renderSettings() {
    segmented($('orientation'), 'orientation', ['landscape', 'portrait'], state.orientation, (v) => { state.orientation = v; validate(); });
    segmented($('resolution'), 'resolution', ['720p', '1080p'], state.resolution, (v) => { state.resolution = v; validate(); });
    segmented($('transition'), 'transition', TRANSITIONS.map((t) => t.value), state.transition, (v) => { state.transition = v; validate(); },
      Object.fromEntries(TRANSITIONS.map((t) => [t.value, t.label])));
    $('title').value = state.title;
    $('title').oninput = () => { state.title = $('title').value; };
    const engines = ctx.engines();
    if (!state.engine) state.engine = engines.find((e) => e.default)?.id ?? engines[0]?.id ?? '';
    $('engine').replaceChildren(...engines.map((e) => el('option', {
      value: e.id, text: `${e.id}${e.default ? ' (default)' : ''}`, selected: e.id === state.engine,
    })));
    const hint = () => {
      const info = engines.find((e) => e.id === state.engine);
      $('engine-hint').textContent = info ? `Moves: ${info.camera_motions.join(', ')}` : '';
    };
    hint();
    $('engine').onchange = () => { state.engine = $('engine').value; hint(); renderImages(); };
    // A restored draft shows what was typed before the reload.
    $('audio').value = state.audio;
    $('webhook').value = state.webhook;
    $('audio').oninput = () => { state.audio = $('audio').value; };
    $('webhook').oninput = () => { state.webhook = $('webhook').value; };
    $('project').onchange = () => { state.project = $('project').value; };
    $('vfx-gallery').replaceWith(gallery('vfx-gallery', `Preview the ${ctx.vfx().length} effects`, ctx.vfx().map(vfxPreview)));
    renderBranding($('create-branding'), state.branding, ctx.templates(), validate,
      (rerender) => kitBox(ctx, state.branding, rerender, validate));
  }

  async function submit() {
    const result = validate();
    if (!result.ok) {
      // Pressing Create on an unfinished form shows every issue, and sends nothing.
      showAll = true;
      validate();
      firstInvalid(root)?.focus();
      return;
    }
    ctx.busy = true;
    $('create-submit').disabled = true;
    $('create-submit').textContent = 'Sending…';
    try {
      const video = await api().createVideo(body());
      results.add(video.uuid);
      ctx.banner('');
      trackVideo($('create-result'), video);
      $('create-result').scrollIntoView({ behavior: 'smooth', block: 'start' });
    } catch (err) {
      ctx.serverError(err, root, touched);
    } finally {
      ctx.busy = false;
      $('create-submit').textContent = 'Create video';
      validate();
    }
  }

  trackTouched(root, touched, validate);
  $('add-image').addEventListener('click', () => { state.images.push(newImage()); renderImages(); });
  $('create-submit').addEventListener('click', submit);

  return {
    refresh() { renderSettings(); renderImages(); },
    /** The draft kept for the key just connected, if it is remembered and has one. */
    restoreDraft() { Object.assign(state, drafts.load(state)); },
    /** A photo row for an uploaded picture: the first empty row, else a new one. */
    addImageUrl(url) {
      const empty = state.images.find((img) => !img.url.trim());
      if (empty) empty.url = url;
      else state.images.push({ ...newImage(), url });
      touched.add('image_inputs');
      renderImages();
    },
    setProjects(projects) { ctx.fillProjects($('project'), projects, state.project); },
    /** The results shown before a reload, fetched again (deleted ones are forgotten). */
    async restoreResults() {
      if ($('create-result').children.length) return;
      for (const uuid of results.list().reverse()) {
        try {
          trackVideo($('create-result'), await api().getVideo(uuid));
        } catch (err) {
          if (err.status === 404) results.remove(uuid);
        }
      }
    },
  };
}
