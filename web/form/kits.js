// Brand kits in the form: pick a saved kit (its intro, outro and speed ramp fill the branding
// card, where any field can still be changed: what is sent beside the kit overrides it), or
// save the card as a new kit.
import { api } from './session.js';
import { el } from './fields.js';
import { brandingBody } from './branding.js';

let kits = [];

/** Fetches the account's kits (after connecting). */
export async function loadKits() {
  // Every page: an account keeps at most 100 kits, one page of the largest size.
  const all = [];
  let cursor = null;
  do {
    const page = await api().getBrandKits({ limit: 100, cursor });
    all.push(...page.brand_kits);
    cursor = page.next_cursor;
  } while (cursor);
  kits = all;
  return kits;
}

/** The kit row of a branding card; `rerender` redraws the card, `onChange` revalidates. */
export function kitBox(ctx, state, rerender, onChange) {
  const select = el('select', {
    class: 'kit-select',
    onchange: (e) => {
      state.brand_kit = e.target.value;
      const kit = kits.find((k) => k.uuid === state.brand_kit);
      if (kit) {
        for (const slot of ['intro', 'outro']) {
          const config = kit[slot]?.config ?? {};
          state[slot] = {
            template: kit[slot]?.template ?? '',
            values: Object.fromEntries(Object.entries(config).map(([key, v]) => [key, v.value ?? v.url ?? ''])),
          };
        }
        state.speed_ramp = kit.speed_ramp;
      }
      rerender();
      onChange();
    },
  }, el('option', { value: '', text: 'None' }),
  ...kits.map((k) => el('option', { value: k.uuid, text: k.name, selected: k.uuid === state.brand_kit })));
  const name = el('input', { class: 'kit-name', placeholder: 'Acme Realty', maxlength: '100' });
  const save = el('button', {
    type: 'button',
    class: 'btn small ghost kit-save',
    text: 'Save as brand kit',
    onclick: async () => {
      const branding = brandingBody(state, ctx.templates()) ?? {};
      delete branding.brand_kit;
      try {
        const kit = await api().createBrandKit({ name: name.value, ...branding });
        kits.push(kit);
        state.brand_kit = kit.uuid;
        rerender();
        onChange();
        ctx.banner(`Brand kit “${kit.name}” saved.`, 'info');
      } catch (err) {
        const detail = err.details?.map((d) => `${d.field}: ${d.message}`).join('; ');
        ctx.banner(`Could not save the brand kit: ${detail || err.message}`);
      }
    },
  });
  return el('div', { class: 'grid kit-row' },
    el('label', { class: 'field' }, el('span', { text: 'Brand kit' }), select,
      el('small', { class: 'hint', text: 'Fills the fields below; what you change there overrides the kit' }),
      el('small', { class: 'err', 'data-error-for': 'branding.brand_kit' })),
    el('div', { class: 'field' }, el('span', { text: 'Save this branding as a kit named' }),
      el('div', { class: 'row' }, name, save)));
}
