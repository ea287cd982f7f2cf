// Every API call goes through the package's client (`createClient`), made for the key in use
// (kept by key.js).
import { createClient } from './stillreel/src/browser.js';
import { apiKey } from './key.js';

export { apiKey };

let cached = null;

/** The client for the current key, on the origin that serves the form; one per key, so the
 * deployment's options it fetches for validation are fetched once. */
export function api() {
  const key = apiKey.get();
  if (cached?.key !== key) cached = { key, client: createClient({ baseUrl: location.origin, apiKey: key || 'none' }) };
  return cached.client;
}
