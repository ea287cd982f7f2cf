// Where the end-to-end test runs: an existing server (STILLREEL_E2E_URL + STILLREEL_E2E_KEY),
// or one this file starts from the built `stillreel` binary (STILLREEL_BIN, else the newer of
// target/release and target/debug) with a fresh data directory and an account of its own.
// Without either, only the parts that need no server run.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoDir, webDir } from '../scripts/config.mjs';
import { serve } from '../scripts/static-server.mjs';

const freePort = () => new Promise((done) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => done(port)); });
});

/** JPEG stills made with ffmpeg, served on 127.0.0.1 (the server must allow that host). */
export async function stills(count) {
  const dir = mkdtempSync(join(tmpdir(), 'stillreel-e2e-img-'));
  const sources = ['testsrc2', 'smptehdbars', 'rgbtestsrc', 'mandelbrot'];
  for (let i = 0; i < count; i++) {
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', `${sources[i % sources.length]}=s=1600x1000`,
      '-frames:v', '1', '-q:v', '3', join(dir, `photo-${i}.jpg`)]);
  }
  const server = await serve({ '/': dir });
  return {
    urls: Array.from({ length: count }, (_, i) => `${server.url}/photo-${i}.jpg`),
    close: async () => { await server.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

/** STILLREEL_BIN, else the newer of target/release and target/debug (a stale release build
 * must not shadow a fresh debug one). */
function binary() {
  if (process.env.STILLREEL_BIN) return existsSync(process.env.STILLREEL_BIN) ? process.env.STILLREEL_BIN : undefined;
  return ['release', 'debug']
    .map((profile) => resolve(repoDir, `target/${profile}/stillreel`))
    .filter((path) => existsSync(path))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

async function waitHealthy(url, child, ms = 30000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`stillreel serve exited with ${child.exitCode}`);
    try { if ((await fetch(`${url}/healthz`)).ok) return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`stillreel serve did not become healthy at ${url}`);
}

/** {url, key, live, why, close}. `live` is false when no server is available. `env` adds
 * variables to a server this starts; `accountArgs` are extra `accounts create` arguments. */
export async function target({ env: extraEnv = {}, accountArgs = [], own = false } = {}) {
  if (!own && process.env.STILLREEL_E2E_URL && process.env.STILLREEL_E2E_KEY) {
    return { url: process.env.STILLREEL_E2E_URL.replace(/\/$/, ''), key: process.env.STILLREEL_E2E_KEY, live: true, close: async () => {} };
  }
  const bin = binary();
  if (!bin && process.env.STILLREEL_REQUIRE_SERVER) {
    // CI sets this: a suite that silently skipped its live tests would pass without testing.
    throw new Error('STILLREEL_REQUIRE_SERVER is set but no stillreel binary was found (STILLREEL_BIN or target/{debug,release}/stillreel)');
  }
  if (!bin) {
    const site = await serve({ '/': resolve(webDir, 'dist') });
    return { ...site, key: '', live: false, why: 'no server: set STILLREEL_E2E_URL and STILLREEL_E2E_KEY, or build the stillreel binary' };
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const data = mkdtempSync(join(tmpdir(), 'stillreel-e2e-'));
  const env = {
    ...process.env,
    STILLREEL_LISTEN: `127.0.0.1:${port}`,
    STILLREEL_PUBLIC_URL: url,
    STILLREEL_DATA_DIR: data,
    STILLREEL_WEB_DIR: resolve(webDir, 'dist'),
    STILLREEL_FETCH_ALLOW: '127.0.0.1',
    ...extraEnv,
  };
  delete env.STILLREEL_DATABASE_URL;
  const account = JSON.parse(execFileSync(bin, ['accounts', 'create', 'e2e', ...accountArgs], { env, encoding: 'utf8' }));
  const child = spawn(bin, ['serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  try {
    await waitHealthy(url, child);
  } catch (err) {
    child.kill();
    throw new Error(`${err.message}\n${stderr}`);
  }
  return {
    url, key: account.api_key, live: true, bin,
    close: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/** Connects an open page of the form with the site's key and waits until it says so. */
export async function connect(page, site) {
  await page.fill('#api-key', site.key);
  await page.click('#key-form button');
  try {
    await page.waitForFunction(() => document.getElementById('conn').textContent.startsWith('connected'));
  } catch (err) {
    // Say what the form shows: "offline" with the banner's reason reads differently from a hang.
    const shown = await page.evaluate(() => ({
      conn: document.getElementById('conn').textContent,
      banner: document.getElementById('banner').textContent,
      key: document.getElementById('api-key').value.length,
      url: location.href,
    })).catch((e) => ({ error: e.message }));
    err.message += `\nthe form shows: ${JSON.stringify(shown)}`;
    throw err;
  }
}
