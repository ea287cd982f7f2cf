// The form's entry. It loads no wasm itself, so the key box works from the first paint: a key
// submitted while the rest of the form (main.js, behind the wasm rules) is still loading is
// stored and used as soon as it has loaded. Without this the browser would submit the key box
// natively, reloading the page and losing the key.
import { apiKey } from './key.js';

const keyForm = document.getElementById('key-form');
const keyInput = document.getElementById('api-key');
const keyRemember = document.getElementById('api-key-remember');
const connectButton = keyForm.querySelector('button[type="submit"]');
let main = null;

// The HTML ships Connect disabled: until this module runs, a submit (a click or Enter, which a
// disabled default button also stops) would be the browser's own and reload the page.
connectButton.disabled = false;
keyInput.value = apiKey.get();
keyRemember.checked = apiKey.remembered();
keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  apiKey.set(keyInput.value.trim(), keyRemember.checked);
  if (main) main.connect();
  else document.getElementById('conn').textContent = 'loading the form…';
});

try {
  main = await import('./main.js');
  await main.start();
} catch (err) {
  connectButton.disabled = true;
  document.getElementById('conn').textContent = 'the form could not load';
  const banner = document.getElementById('banner');
  banner.hidden = false;
  banner.textContent = `The form could not load (reload the page to try again): ${err.message}`;
}
