// What survives a reload: the create tab's draft (everything typed) and the results shown
// under it (their uuids; the records are fetched again). Kept in this browser's
// localStorage, never the API key's business.
const DRAFT = 'stillreel.draft.create';
const RESULTS = 'stillreel.results.create';

export const drafts = {
  save(state) {
    try { localStorage.setItem(DRAFT, JSON.stringify(state)); } catch { /* full or disabled */ }
  },
  /** The saved draft merged over `fresh` (so members added later get their defaults). */
  load(fresh) {
    try {
      const saved = JSON.parse(localStorage.getItem(DRAFT) ?? 'null');
      return saved && Array.isArray(saved.images) && saved.images.length ? { ...fresh, ...saved } : fresh;
    } catch {
      return fresh;
    }
  },
  clear() { localStorage.removeItem(DRAFT); },
};

export const results = {
  list() {
    try { return JSON.parse(localStorage.getItem(RESULTS) ?? '[]'); } catch { return []; }
  },
  add(uuid) {
    const list = [uuid, ...results.list().filter((u) => u !== uuid)].slice(0, 5);
    localStorage.setItem(RESULTS, JSON.stringify(list));
  },
  remove(uuid) {
    localStorage.setItem(RESULTS, JSON.stringify(results.list().filter((u) => u !== uuid)));
  },
};
