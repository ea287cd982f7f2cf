// The API key this browser keeps. No other import: the form's entry (app.js) reads and stores it
// before the wasm rules have loaded.

const KEY = 'stillreel.apiKey';

// The key is kept for this tab's session (sessionStorage: gone when the tab closes) unless
// the user ticks "remember", which keeps it in localStorage across visits.
export const apiKey = {
  get: () => sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY) ?? '',
  remembered: () => localStorage.getItem(KEY) !== null,
  set: (key, remember = false) => {
    sessionStorage.removeItem(KEY);
    localStorage.removeItem(KEY);
    if (key) (remember ? localStorage : sessionStorage).setItem(KEY, key);
  },
};
