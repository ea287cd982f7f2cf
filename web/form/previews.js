// Previews of every template and every effect, beside their pickers and in a gallery. They are
// stills of the effect gallery (docs/effects/, rendered from the bundled samples with sample
// values through the real pipeline by scripts/effects_gallery.sh), made small by
// scripts/form_previews.sh and served with the form from previews/. Generative effects have
// none: the deployment's model provider draws them, and the gallery runs without one.
import { el } from './fields.js';

/** A still of what `key` ("template:<id>" or "vfx:<type>") looks like, or why there is none. */
function figure(key, src, caption, missing) {
  const note = el('small', { class: 'muted', text: missing });
  const fig = el('figure', { class: 'preview', 'data-preview': key, 'data-state': src ? 'loading' : 'none' });
  if (!src) {
    fig.append(el('div', { class: 'no-still' }, note), el('figcaption', { text: caption }));
    return fig;
  }
  const img = el('img', { src, alt: `${caption}: preview`, loading: 'lazy', width: '480', height: '270' });
  img.addEventListener('load', () => { fig.dataset.state = 'loaded'; });
  // A deployment's own template (a template file) has no still in the gallery.
  img.addEventListener('error', () => { fig.dataset.state = 'none'; img.replaceWith(el('div', { class: 'no-still' }, note)); });
  fig.append(img, el('figcaption', { text: caption }));
  return fig;
}

/** The preview of a template (an entry of GET /get_templates). */
export function templatePreview(template) {
  return figure(`template:${template.id}`, `previews/template-${template.id}.jpg`, template.name,
    'No preview of this template: it is one of this deployment’s own.');
}

/** The preview of an effect (an entry of vfxTypes()). */
export function vfxPreview(info) {
  return figure(`vfx:${info.type}`, info.generative ? '' : `previews/vfx-${info.type}.jpg`, info.type,
    info.generative
      ? 'Drawn by the deployment’s generative model: no still preview.'
      : 'No preview of this effect.');
}

/** A folded gallery of `figures` under `title`; open if the one it replaces was. */
export function gallery(id, title, figures) {
  return el('details', { class: 'gallery', id, open: document.getElementById(id)?.open },
    el('summary', { text: title }),
    el('div', { class: 'gallery-grid' }, ...figures));
}
