// The branding card, shared by both tabs: intro and outro pickers whose fields are generated
// from the template listing, and the speed ramp.
import { el } from './fields.js';
import { gallery, templatePreview } from './previews.js';
import { filePicker } from './uploads.js';

export function newBranding() {
  return { intro: { template: '', values: {} }, outro: { template: '', values: {} }, speed_ramp: false };
}

/** The request's `branding` member, or undefined when nothing is asked for. */
export function brandingBody(state, templates) {
  const body = {};
  for (const slot of ['intro', 'outro']) {
    const { template, values } = state[slot];
    if (!template) continue;
    const fields = templates.find((t) => t.id === template)?.fields ?? [];
    const config = {};
    for (const field of fields) {
      const value = values[field.key] ?? '';
      if (value === '') continue;
      config[field.key] = field.type === 'image' ? { url: value } : { value };
    }
    body[slot] = Object.keys(config).length ? { template, config } : { template };
  }
  if (state.speed_ramp) body.speed_ramp = true;
  if (state.brand_kit) body.brand_kit = state.brand_kit;
  return Object.keys(body).length ? body : undefined;
}

/** Renders the card into `card`; `onChange` runs after every edit. `extra(rerender)` adds a
 * row at the top (the brand kit picker). */
export function renderBranding(card, state, templates, onChange, extra) {
  const slotBlock = (slot, title) => {
    const current = state[slot];
    const choices = templates.filter((t) => t.slot === slot);
    const chosen = choices.find((t) => t.id === current.template);
    const select = el('select', {
      'data-field': `branding.${slot}.template`,
      onchange: (e) => { current.template = e.target.value; current.values = {}; render(); onChange(); },
    }, el('option', { value: '', text: 'None' }),
    ...choices.map((t) => el('option', { value: t.id, text: t.name, selected: t.id === current.template })));
    const fields = (chosen?.fields ?? []).map((field) => {
      const path = `branding.${slot}.config.${field.key}`;
      const label = field.key.replace(/_/g, ' ');
      const input = el(field.max_length && field.max_length > 80 ? 'textarea' : 'input', {
        'data-field': path,
        'aria-label': label,
        type: field.type === 'image' ? 'url' : 'text',
        placeholder: field.type === 'image' ? `https://…/${field.key}.png` : '',
        value: current.values[field.key] ?? '',
        oninput: (e) => { current.values[field.key] = e.target.value; onChange(); },
      });
      if (input.tagName === 'TEXTAREA') input.value = current.values[field.key] ?? '';
      const hint = field.max_length ? `up to ${field.max_length} characters` : field.type === 'image' ? 'image URL, or upload one' : '';
      // An image field (logo, headshot) takes a URL or a picture uploaded from this computer.
      return el(field.type === 'image' ? 'div' : 'label', { class: 'field' },
        el('span', {}, `${label[0].toUpperCase()}${label.slice(1)} `, el('em', { text: field.required ? '' : 'optional' })),
        input,
        field.type === 'image' ? filePicker(input, 'image/jpeg,image/png,image/webp', label) : null,
        el('small', { class: 'hint', text: hint }),
        el('small', { class: 'err', 'data-error-for': path }));
    });
    return el('div', { class: 'slot' },
      el('label', { class: 'field' }, el('span', { text: title }), select,
        el('small', { class: 'hint', text: chosen?.description ?? '' }),
        el('small', { class: 'err', 'data-error-for': `branding.${slot}.template` })),
      chosen ? templatePreview(chosen) : null,
      fields.length ? el('div', { class: 'grid tight vfx-config' }, ...fields) : null);
  };
  const render = () => {
    card.replaceChildren(
      el('div', { class: 'card-head' }, el('h2', { text: 'Branding' }), el('span', { class: 'muted', text: 'optional' })),
      el('small', { class: 'err block', 'data-field': 'branding', 'data-error-for': 'branding' }),
      extra ? extra(render) : null,
      el('div', { class: 'grid' }, slotBlock('intro', 'Intro (first 3 s)'), slotBlock('outro', 'Outro (3 s end card)')),
      el('label', { class: 'field check', 'data-field': 'branding.speed_ramp' },
        el('span', {}, el('input', {
          type: 'checkbox', checked: state.speed_ramp,
          onchange: (e) => { state.speed_ramp = e.target.checked; onChange(); },
        }), 'Speed ramp: accelerate into each cut (two or more clips)'),
        el('small', { class: 'err', 'data-error-for': 'branding.speed_ramp' })),
      gallery(`${card.id}-templates`, `Preview the ${templates.length} templates (sample values)`, templates.map(templatePreview)),
    );
  };
  render();
  return render;
}
