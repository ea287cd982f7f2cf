// What survives a reload: the create tab's draft (everything typed) and the results shown
// under it (their uuids; the records are fetched again). Kept in this browser's localStorage
// only for a remembered API key, under a name of that key's own (key.js): without "remember"
// nothing typed outlives the page, so the next person at a shared browser sees none of it.
import { apiKey } from './key.js';

const DRAFT = 'stillreel.draft.create';
const RESULTS = 'stillreel.results.create';

/** This page's results when the key is not remembered. */
let shown = [];

export const drafts = {
  save(state) {
    const name = apiKey.kept(DRAFT);
    if (!name) return;
    try { localStorage.setItem(name, JSON.stringify(state)); } catch { /* full or disabled */ }
  },
  /** The saved draft merged over `fresh` (so members added later get their defaults). */
  load(fresh) {
    const name = apiKey.kept(DRAFT);
    if (!name) return fresh;
    try {
      const saved = JSON.parse(localStorage.getItem(name) ?? 'null');
      return saved && Array.isArray(saved.images) && saved.images.length ? { ...fresh, ...saved } : fresh;
    } catch {
      return fresh;
    }
  },
  clear() {
    const name = apiKey.kept(DRAFT);
    if (name) localStorage.removeItem(name);
  },
};

export const results = {
  list() {
    const name = apiKey.kept(RESULTS);
    if (!name) return shown;
    try { return JSON.parse(localStorage.getItem(name) ?? '[]'); } catch { return []; }
  },
  add(uuid) { keep([uuid, ...results.list().filter((u) => u !== uuid)].slice(0, 5)); },
  remove(uuid) { keep(results.list().filter((u) => u !== uuid)); },
};

function keep(list) {
  shown = list;
  const name = apiKey.kept(RESULTS);
  if (name) try { localStorage.setItem(name, JSON.stringify(list)); } catch { /* full or disabled */ }
}
