// What this browser keeps: the API key. Every API call goes through the package's client
// (`createClient`), made for the key in use.
import { createClient } from './stillreel/src/browser.js';

const KEY = 'stillreel.apiKey';

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
