// The form's API key and its Content-Security-Policy in headless Chromium, on the form served
// by a started `stillreel serve` (see target.mjs): the key stays in the tab's sessionStorage
// unless "remember" is ticked, the create tab's draft is kept only for a remembered key, and the form (its WebAssembly validator included) runs under the
// server's policy without a single violation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch } from '../scripts/browser.mjs';
import { target } from './target.mjs';

const site = await target({ own: true });
const skip = site.live ? false : site.why;
let browser;

before(async () => { browser = await launch(); });
after(async () => {
  await browser?.close();
  await site.close();
});

/** A page of `context` on the form, with its CSP violations and page errors collected. */
async function open(context) {
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) problems.push(m.text()); });
  const response = await page.goto(`${site.url}/`);
  await page.waitForSelector('.image-row');
  return { page, problems, response };
}

async function connect(page, remember) {
  await page.fill('#api-key', site.key);
  await page.setChecked('#api-key-remember', remember);
  await page.click('#key-form button');
  await page.waitForFunction(() => document.getElementById('conn').textContent.startsWith('connected'));
}

const stored = (page) => page.evaluate(() => ({
  session: sessionStorage.getItem('stillreel.apiKey'),
  local: localStorage.getItem('stillreel.apiKey'),
}));

test('the key is kept for the tab unless "remember" is ticked', { skip }, async () => {
  const context = await browser.newContext();
  try {
    const first = await open(context);
    await connect(first.page, false);
    assert.deepEqual(await stored(first.page), { session: site.key, local: null });
    // Another tab of the same browser does not get it.
    const second = await open(context);
    assert.equal(await second.page.inputValue('#api-key'), '');
    assert.equal(await second.page.isChecked('#api-key-remember'), false);

    await connect(first.page, true);
    assert.deepEqual(await stored(first.page), { session: null, local: site.key });
    const third = await open(context);
    assert.equal(await third.page.inputValue('#api-key'), site.key);
    assert.equal(await third.page.isChecked('#api-key-remember'), true);
    // Unticking forgets it across visits again.
    await connect(third.page, false);
    assert.deepEqual(await stored(third.page), { session: site.key, local: null });
    for (const { problems } of [first, second, third]) assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

/** The names of the drafts and results this browser keeps. */
const kept = (page) => page.evaluate(() => Object.keys(localStorage).filter((n) => /^stillreel\.(draft|results)\./.test(n)).sort());

async function type(page, title) {
  await page.fill('#title', title);
  await page.fill('.f-url', `${site.url}/samples/house-colonial.jpg`);
}

test('the create tab\'s draft is kept only for a remembered key, per key, and forgotten with it', { skip }, async () => {
  const context = await browser.newContext();
  try {
    // Not remembered: nothing typed is stored, and a reload of the tab starts empty.
    const first = await open(context);
    await connect(first.page, false);
    await type(first.page, 'Draft of someone');
    assert.deepEqual(await kept(first.page), []);
    await first.page.reload();
    await first.page.waitForFunction(() => document.getElementById('conn').textContent.startsWith('connected'));
    assert.equal(await first.page.inputValue('#title'), '');
    assert.equal(await first.page.inputValue('.f-url'), '');

    // Remembered: kept under a name of the key's own (not the key), and back in a new tab.
    await connect(first.page, true);
    await type(first.page, 'Draft kept');
    const names = await kept(first.page);
    assert.equal(names.length, 1, String(names));
    assert.match(names[0], /^stillreel\.draft\.create\.[0-9a-f]{8}$/);
    assert.ok(!names[0].includes(site.key));
    const second = await open(context);
    await second.page.waitForFunction(() => document.getElementById('conn').textContent.startsWith('connected'));
    assert.equal(await second.page.inputValue('#title'), 'Draft kept');
    assert.equal(await second.page.inputValue('.f-url'), `${site.url}/samples/house-colonial.jpg`);

    // Unticking "remember" forgets the draft with the key; the next visit finds neither.
    await connect(second.page, false);
    assert.deepEqual(await kept(second.page), []);
    const third = await open(context);
    assert.equal(await third.page.inputValue('#api-key'), '');
    assert.equal(await third.page.inputValue('#title'), '');
    for (const { problems } of [first, second, third]) assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the form runs under its Content-Security-Policy, the wasm validator included', { skip }, async () => {
  const context = await browser.newContext();
  try {
    const { page, problems, response } = await open(context);
    const csp = response.headers()['content-security-policy'];
    assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(response.headers()['x-content-type-options'], 'nosniff');
    assert.equal(response.headers()['referrer-policy'], 'no-referrer');
    await connect(page, false);
    // The validator (WebAssembly) answers in the page: a bad URL gets its message at once.
    await page.fill('.f-url', 'ftp://example.com/a.jpg');
    await page.waitForFunction(() => document.querySelector('[data-error-for="image_inputs[0].image_url"]')?.textContent.length > 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a key submitted while the wasm rules are still loading connects once they have, with no reload', { skip }, async () => {
  const context = await browser.newContext();
  try {
    // A slow line: the validator's wasm arrives two seconds late. The page's load event does not
    // wait for it, so the key box is in view (and submittable) before the rest of the form.
    let release;
    const held = new Promise((r) => { release = r; });
    await context.route('**/stillreel_wasm_bg.wasm', async (route) => { await held; await route.continue(); });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    let navigations = 0;
    page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) navigations++; });
    // DOMContentLoaded: the entry module has run (module scripts are deferred), the held wasm
    // has not arrived.
    await page.goto(`${site.url}/`, { waitUntil: 'domcontentloaded' });
    await page.fill('#api-key', site.key);
    await page.click('#key-form button');
    assert.equal(await page.textContent('#conn'), 'loading the form…');
    assert.equal(await page.locator('.image-row').count(), 0, 'the rest of the form is still loading');
    setTimeout(release, 2000);
    await page.waitForFunction(() => document.getElementById('conn').textContent.startsWith('connected'), null, { timeout: 30000 });
    assert.equal(navigations, 1, 'the key box did not reload the page');
    assert.deepEqual(await stored(page), { session: site.key, local: null });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
