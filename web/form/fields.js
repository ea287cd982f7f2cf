// Puts validation errors under the inputs they belong to. Inputs carry `data-field` with the
// request path (`image_inputs[0].vfx.config.text`); an error whose path has no input of its own
// goes to the nearest enclosing path that has one, else to the form's banner.

/** `a.b[2].c` → `a.b[2]` → `a.b` → `a` → ''. */
export function parentPath(path) {
  const cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
  return cut <= 0 ? '' : path.slice(0, cut);
}

/**
 * Shows `errors` inside `root`. Only fields the user touched show their error, unless `all`.
 * @returns the errors that found no place in the form
 */
export function showErrors(root, errors, touched, all) {
  for (const el of root.querySelectorAll('.err')) el.textContent = '';
  for (const el of root.querySelectorAll('.invalid')) el.classList.remove('invalid');
  const homeless = [];
  for (const error of errors) {
    let path = error.field;
    let input = root.querySelector(`[data-field="${CSS.escape(path)}"]`);
    while (!input && path) {
      path = parentPath(path);
      input = path ? root.querySelector(`[data-field="${CSS.escape(path)}"]`) : null;
    }
    if (!input) { homeless.push(error); continue; }
    // Whole-list errors (too many photos) show at once; field errors once the field is touched.
    if (!all && !touched.has(path) && !input.classList.contains('err')) continue;
    const slot = root.querySelector(`[data-error-for="${CSS.escape(path)}"]`) ?? input.parentElement.querySelector('.err');
    if (slot) slot.textContent = slot.textContent ? `${slot.textContent} · ${error.message}` : error.message;
    input.classList.add('invalid');
  }
  return homeless;
}

/** Marks fields as touched when the user changes them. */
export function trackTouched(root, touched, onChange) {
  const mark = (event) => {
    const field = event.target.closest('[data-field]')?.dataset.field;
    if (field) touched.add(field);
    onChange();
  };
  root.addEventListener('input', mark);
  root.addEventListener('change', mark);
}

/** "Ready to send" or "n fields need attention"; nothing until the user has `acted`. */
export function summary(el, errors, acted = true) {
  el.classList.toggle('bad', acted && errors.length > 0);
  el.classList.toggle('good', errors.length === 0);
  if (errors.length === 0) el.textContent = 'Ready to send';
  else el.textContent = acted ? `${errors.length} ${errors.length === 1 ? 'field needs' : 'fields need'} attention` : '';
}

/** The first input showing an error, to move the focus to. */
export function firstInvalid(root) {
  return root.querySelector('input.invalid, select.invalid, textarea.invalid, .invalid input, .invalid select, .invalid button');
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

/** A row of radio buttons styled as a segmented control; `labels` maps a value to its text. */
export function segmented(container, name, values, current, onPick, labels = {}) {
  container.replaceChildren(...values.map((value) => el('label', {},
    el('input', { type: 'radio', name, value, checked: value === current, onchange: () => onPick(value) }),
    labels[value] ?? value)));
}
