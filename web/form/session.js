// What this browser keeps: the API key and the videos it created. Every API call goes through
// the package's client (`createClient`), made for the key in use.
import { createClient } from './stillreel/src/browser.js';

const KEY = 'stillreel.apiKey';
const VIDEOS = 'stillreel.videos';

let cached = null;

// The key is kept for this tab's session (sessionStorage: gone when the tab closes) unless
// the user ticks "remember", which keeps it in localStorage across visits.
export const apiKey = {
  get: () => sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY) ?? '',
  remembered: () => localStorage.getItem(KEY) !== null,
  set: (key, remember = false) => {
    sessionStorage.removeItem(KEY);
    localStorage.removeItem(KEY);
    if (key) (remember ? localStorage : sessionStorage).setItem(KEY, key);
    cached = null;
  },
};

/** The client for the current key, on the origin that serves the form; one per key, so the
 * deployment's options it fetches for validation are fetched once. */
export function api() {
  const key = apiKey.get();
  if (cached?.key !== key) cached = { key, client: createClient({ baseUrl: location.origin, apiKey: key || 'none' }) };
  return cached.client;
}

// The API has no "list my videos", so this browser remembers the videos it created.
export const history = {
  list: () => {
    try { return JSON.parse(localStorage.getItem(VIDEOS) ?? '[]'); } catch { return []; }
  },
  add: (uuid) => {
    const list = history.list().filter((v) => v.uuid !== uuid);
    list.unshift({ uuid, added_at: new Date().toISOString() });
    localStorage.setItem(VIDEOS, JSON.stringify(list.slice(0, 50)));
  },
};
