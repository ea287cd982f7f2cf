// The stillreel form once the wasm rules have loaded (app.js imports this module): loads the
// deployment's catalogs with the API key and wires the three tabs. No framework: a few small
// modules under this directory.
import { StillreelApiError, builtinTemplates, engines, vfxTypes } from './stillreel/src/browser.js';
import { api, apiKey } from './session.js';
import { combineTab } from './combine.js';
import { createTab } from './create.js';
import { libraryTab } from './library.js';
import { loadKits } from './kits.js';
import { filePicker, uploadZone } from './uploads.js';
import { rememberPhoto } from './preview.js';
import { el, showErrors } from './fields.js';

// What the deployment knows; the built-in defaults until the server answers.
const deployment = { templates: builtinTemplates(), engines: null, options: {} };

const ctx = {
  busy: false,
  options: () => deployment.options,
  templates: () => deployment.templates,
  engines: () => deployment.engines ?? engines(deployment.options),
  engine: (id) => id || ctx.engines().find((e) => e.default)?.id || 'v25',
  vfx: () => vfxTypes(deployment.options),
  banner(text, kind = 'error') {
    const banner = document.getElementById('banner');
    banner.hidden = !text;
    banner.className = `banner${kind === 'info' ? ' info' : ''}`;
    banner.textContent = text;
  },
  /** A server rejection: its details go under the fields, its message to the banner. */
  serverError(err, root, touched) {
    const details = err instanceof StillreelApiError ? err.details : [];
    for (const d of details) touched.add(d.field);
    showErrors(root, details, touched, true);
    ctx.banner(err.status === 401 ? 'The server did not accept the API key.' : `The server said: ${err.message}`);
  },
  fillProjects(select, projects, current) {
    select.replaceChildren(el('option', { value: '', text: 'Default project' }),
      ...projects.map((p) => el('option', { value: p.uuid, text: `${p.name}${p.is_default ? ' (default)' : ''}`, selected: p.uuid === current })));
  },
};

const create = createTab(ctx);
const combine = combineTab(ctx);
const library = libraryTab(ctx);

export function setConn(text, kind) {
  const conn = document.getElementById('conn');
  conn.textContent = text;
  conn.className = `conn ${kind ?? ''}`;
}

// The latest connect: an earlier one still waiting for the server (a second submit, the
// entry's own connect on load) must not fill the form after it.
let connecting = 0;

export async function connect() {
  const mine = ++connecting;
  if (!apiKey.get()) {
    setConn('not connected');
    return;
  }
  setConn('connecting…');
  try {
    const [projects, templates, engineList, account] = await Promise.all([
      api().getProjects(), api().getTemplates(), api().getEngines(), api().getAccount(),
    ]);
    if (mine !== connecting) return;
    deployment.templates = templates.templates;
    deployment.engines = engineList.engines;
    const preferred = engineList.engines.find((e) => e.default) ?? engineList.engines[0];
    deployment.options = {
      templates: templates.templates,
      available_vfx: preferred?.vfx_types,
      available_engines: engineList.engines.map((e) => e.id),
      default_engine: preferred?.id,
      clip_limit: account.clip_limit,
    };
    await loadKits().catch(() => []);
    if (mine !== connecting) return;
    create.restoreDraft();
    create.setProjects(projects.projects);
    combine.setProjects(projects.projects);
    library.setProjects(projects.projects);
    create.refresh();
    combine.refresh();
    setConn(`connected · ${projects.projects.length} project(s)`, 'ok');
    showLimit(account.clip_limit);
    create.restoreResults();
    ctx.banner('');
  } catch (err) {
    if (mine !== connecting) return;
    setConn(err.status === 401 ? 'key not accepted' : 'offline', 'bad');
    ctx.banner(err.status === 401 ? 'The server did not accept this API key.' : `Cannot reach the API: ${err.message}`);
  }
}

/** The account's plan, from GET /get_account: the create tab's photo counter uses it too. */
function showLimit(limit) {
  const box = document.getElementById('clip-limit');
  box.textContent = `Your plan: up to ${limit} photos per video`;
  box.dataset.limit = String(limit);
}

function newProjectBox() {
  const box = document.getElementById('new-project');
  const name = document.getElementById('project-name');
  const button = document.getElementById('project-create');
  const check = () => {
    const { validateCreateProject } = window.stillreel;
    const result = validateCreateProject({ name: name.value });
    showErrors(box, result.errors, new Set(['name']), name.value !== '');
    button.disabled = !result.ok;
    return result;
  };
  document.getElementById('new-project-toggle').addEventListener('click', () => {
    box.hidden = !box.hidden;
    if (!box.hidden) { name.focus(); check(); }
  });
  name.addEventListener('input', check);
  // The name is not part of the video form: keep its edits from re-running (and clearing) it.
  for (const type of ['input', 'change']) box.addEventListener(type, (event) => event.stopPropagation());
  button.addEventListener('click', async () => {
    if (!check().ok) return;
    try {
      const project = await api().createProject({ name: name.value });
      const { projects } = await api().getProjects();
      setConn(`connected · ${projects.length} project(s)`, 'ok');
      create.setProjects(projects);
      combine.setProjects(projects);
      const select = document.getElementById('project');
      select.value = project.uuid;
      select.dispatchEvent(new Event('change', { bubbles: true }));
      name.value = '';
      box.hidden = true;
      ctx.banner(`Project “${project.name}” created.`, 'info');
    } catch (err) {
      ctx.banner(`Could not create the project: ${err.message}`);
    }
  });
}

function tabs() {
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    tab.addEventListener('click', () => {
      for (const other of document.querySelectorAll('[role="tab"]')) {
        const on = other === tab;
        other.setAttribute('aria-selected', String(on));
        document.getElementById(`panel-${other.dataset.tab}`).hidden = !on;
      }
      if (tab.dataset.tab === 'combine') combine.load();
      if (tab.dataset.tab === 'library') library.load();
    });
  }
}

/** Wires the tabs and connects with the key the entry has stored (typed while this loaded, too). */
export async function start() {
  // Exposed for the console and the end-to-end test.
  window.stillreel = await import('./stillreel/src/browser.js');
  tabs();
  newProjectBox();
  // The preview reads an uploaded photo from the file itself (no fetch; with object storage the
  // file's URL is another origin, which the form's CSP does not let it fetch).
  uploadZone((url, file) => { rememberPhoto(url, file); create.addImageUrl(url); });
  // "Upload music…" beside the music URL fields: the uploaded file's URL fills the field.
  for (const slot of document.querySelectorAll('[data-picker-for]')) {
    slot.replaceWith(filePicker(document.getElementById(slot.dataset.pickerFor), slot.dataset.accept, slot.dataset.what));
  }
  create.refresh();
  combine.refresh();
  await connect();
}
