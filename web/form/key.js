// The API key this browser keeps. No other import: the form's entry (app.js) reads and stores it
// before the wasm rules have loaded.

const KEY = 'stillreel.apiKey';

/** What the form keeps for a remembered key besides the key: the create tab's draft and the
 * results shown under it, each under `<name>.<tag of the key>`. */
const KEPT = ['stillreel.draft.create', 'stillreel.results.create'];

/** A short, stable tag of `key` (FNV-1a, 32 bits, hex): per-key names that do not hold the key. */
function tag(key) {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(key)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

const forget = (key) => { for (const name of KEPT) localStorage.removeItem(`${name}.${tag(key)}`); };

// The key is kept for this tab's session (sessionStorage: gone when the tab closes) unless
// the user ticks "remember", which keeps it in localStorage across visits. What was typed with it
// is kept only for a remembered key, per key: without "remember" the next person at this browser
// finds no draft, and unticking "remember" (or connecting with no key) removes the key's draft.
export const apiKey = {
  get: () => sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY) ?? '',
  remembered: () => localStorage.getItem(KEY) !== null,
  /** Where `name` (one of KEPT) is kept for the key in use: null when the key is not remembered,
   * and then nothing is kept. */
  kept: (name) => {
    const key = localStorage.getItem(KEY);
    return key && sessionStorage.getItem(KEY) === null ? `${name}.${tag(key)}` : null;
  },
  set: (key, remember = false) => {
    const old = localStorage.getItem(KEY);
    sessionStorage.removeItem(KEY);
    localStorage.removeItem(KEY);
    if (old && !(remember && key)) forget(old);
    if (key && !remember) forget(key);
    if (key) (remember ? localStorage : sessionStorage).setItem(KEY, key);
  },
};

// Drafts kept before they were per key and needed "remember" were anyone's at this browser.
for (const name of KEPT) localStorage.removeItem(name);
