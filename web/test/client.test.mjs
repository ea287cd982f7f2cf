// The client against a real `stillreel serve` (started by e2e/target.mjs from the built
// binary, with a custom template directory and an account limited to 2 clips), and against
// a local proxy that fails on purpose for the retry rules.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createClient, StillreelApiError, StillreelValidationError, StillreelJobError,
} from 'stillreel';
import { target, stills } from '../e2e/target.mjs';

const CUSTOM = {
  id: 'intro-test-banner', slot: 'intro', name: 'Test banner', description: 'A deployment template used by the client tests.',
  style: { background: '#102030', background_opacity: 0.7, accent: '#ffcc00' },
  fields: [{
    key: 'headline', type: 'text', required: true, max_length: 24,
    layout: { landscape: [0.05, 0.75, 0.9, 0.15], portrait: [0.05, 0.75, 0.9, 0.1], font_size: 0.06, color: '#ffffff', align: 'left' },
  }],
};

let server;
let photos;
let templatesDir;
const skip = { skip: false };

before(async () => {
  templatesDir = mkdtempSync(join(tmpdir(), 'stillreel-templates-'));
  writeFileSync(join(templatesDir, 'test-banner.json'), JSON.stringify(CUSTOM));
  server = await target({ own: true, env: { STILLREEL_TEMPLATES_DIR: templatesDir }, accountArgs: ['--clip-limit', '2'] });
  if (!server.live) skip.skip = server.why;
  photos = await stills(2);
});

after(async () => {
  await server?.close();
  await photos?.close();
  rmSync(templatesDir, { recursive: true, force: true });
});

/** A client whose requests are counted (method and path). */
function counted(extra = {}) {
  const calls = [];
  const client = createClient({
    baseUrl: server.url, apiKey: server.key, ...extra,
    fetch: (url, init) => { calls.push(`${init.method} ${new URL(url).pathname}`); return fetch(url, init); },
  });
  return { client, calls };
}

const body = (n = 1, extra = {}) => ({
  image_inputs: photos.urls.slice(0, n).map((image_url) => ({ image_url, camera_motion: 'push-in' })),
  ...extra,
});

test('getAccount, getProjects, getTemplates (with the deployment template) and getEngines', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const { client } = counted();
  const account = await client.getAccount();
  assert.deepEqual(Object.keys(account).sort(), ['account', 'clip_limit', 'default_project', 'name']);
  assert.equal(account.clip_limit, 2);
  assert.equal(account.name, 'e2e');
  const { projects } = await client.getProjects();
  assert.deepEqual(projects.map((p) => p.uuid), [account.default_project]);
  const { templates } = await client.getTemplates();
  const custom = templates.find((x) => x.id === CUSTOM.id);
  assert.ok(custom, 'the template from STILLREEL_TEMPLATES_DIR is listed');
  assert.deepEqual(custom.fields, [{ key: 'headline', type: 'text', required: true, max_length: 24 }]);
  const { engines } = await client.getEngines();
  assert.equal(engines.filter((e) => e.default).length, 1);
});

test('createProject: valid is created; invalid throws StillreelValidationError and sends nothing', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const { client, calls } = counted();
  const project = await client.createProject({ name: 'Client test' });
  assert.equal(project.name, 'Client test');
  assert.ok((await client.getProjects()).projects.some((p) => p.uuid === project.uuid));
  calls.length = 0;
  await assert.rejects(client.createProject({ name: '' }), (err) => {
    assert.ok(err instanceof StillreelValidationError && err instanceof StillreelApiError);
    assert.equal(err.status, 422);
    assert.equal(err.code, 'validation_failed');
    assert.deepEqual(err.details.map((d) => d.field), ['name']);
    return true;
  });
  assert.deepEqual(calls, []);
});

test('createVideo: an invalid body gives the server\'s own details and no create request', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const { client, calls } = counted();
  // Three clips over the account's limit of 2, an unknown template field, a bad URL.
  const bad = {
    image_inputs: [{ image_url: 'ftp://x/a.jpg' }, { image_url: photos.urls[0] }, { image_url: photos.urls[1] }],
    branding: { intro: { template: CUSTOM.id, config: { headline: { value: 'x'.repeat(30) } } }, speed_ramp: false },
  };
  let thrown;
  await assert.rejects(client.createVideo(bad), (err) => { thrown = err; return err instanceof StillreelValidationError; });
  assert.ok(!calls.includes('POST /api/v1/create_video'), `requests: ${calls}`);
  // The same body sent by hand: the server's 422 details equal the client's.
  const response = await fetch(`${server.url}/api/v1/create_video`, {
    method: 'POST', headers: { Authorization: `Bearer ${server.key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(bad),
  });
  assert.equal(response.status, 422);
  const envelope = await response.json();
  assert.deepEqual(thrown.details, envelope.error.details);
  assert.equal(thrown.message, envelope.error.message);
  assert.ok(thrown.details.some((d) => d.field === 'image_inputs'), JSON.stringify(thrown.details));
  assert.ok(thrown.details.some((d) => d.field.startsWith('branding.intro.config.headline')), JSON.stringify(thrown.details));
  // Options were fetched once for both checks.
  await client.createVideo(bad).catch(() => {});
  assert.equal(calls.filter((c) => c === 'GET /api/v1/get_account').length, 1);
});

test('createVideo + waitForVideo with a deployment template: progress, branded render, ffprobe', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const { client } = counted();
  const created = await client.createVideo(body(1, {
    branding: { intro: { template: CUSTOM.id, config: { headline: { value: 'Open house' } } }, speed_ramp: false },
  }));
  assert.ok(created.uuid);
  const seen = [];
  const video = await client.waitForVideo(created.uuid, {
    intervalMs: 200, branding: true, onProgress: (progress, record) => seen.push([progress, record.status]),
  });
  assert.equal(video.status, 'complete');
  assert.equal(video.branding.status, 'complete');
  assert.ok(seen.length >= 1 && seen.at(-1)[1] === 'complete', JSON.stringify(seen));
  for (let i = 1; i < seen.length; i += 1) assert.ok(seen[i][0] >= seen[i - 1][0], 'progress never goes back');
  // The branded file is a real video (the custom template drawn over its first seconds).
  const dir = mkdtempSync(join(tmpdir(), 'stillreel-client-'));
  try {
    const file = join(dir, 'branded.mp4');
    writeFileSync(file, Buffer.from(await (await fetch(video.branding.video_url)).arrayBuffer()));
    const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration:stream=codec_type,width,height', '-of', 'json', file], { encoding: 'utf8' }));
    assert.ok(Number(probe.format.duration) > 1, JSON.stringify(probe));
    assert.ok(probe.streams.some((s) => s.codec_type === 'video' && s.width > 0), JSON.stringify(probe));
    // The template is drawn: at 1.5 s the branded frame differs from the main one in the
    // template's band (the lower part of the frame) and hardly above it.
    const main = join(dir, 'main.mp4');
    writeFileSync(main, Buffer.from(await (await fetch(video.video_url)).arrayBuffer()));
    const gray = (f) => execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-ss', '1.5', '-i', f, '-frames:v', '1', '-vf', 'scale=64:36,format=gray', '-f', 'rawvideo', '-']);
    const [a, b] = [gray(main), gray(file)];
    const meanDiff = (rows) => { let sum = 0; let n = 0; for (const y of rows) for (let x = 0; x < 64; x += 1) { sum += Math.abs(a[y * 64 + x] - b[y * 64 + x]); n += 1; } return sum / n; };
    const band = meanDiff([28, 29, 30, 31]);
    const top = meanDiff([2, 3, 4, 5]);
    assert.ok(band > 15 && band > 3 * top, `band diff ${band.toFixed(1)}, top diff ${top.toFixed(1)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('getVideo errors: unknown uuid is a StillreelApiError 404; a wrong key is 401', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const { client } = counted();
  await assert.rejects(client.getVideo('67e55044-10b1-426f-9247-bb680e5fe0c8'), (err) => {
    assert.ok(err instanceof StillreelApiError);
    assert.equal(err.status, 404);
    assert.equal(err.code, 'not_found');
    assert.ok(Array.isArray(err.details));
    return true;
  });
  const stranger = createClient({ baseUrl: server.url, apiKey: 'sr_not_a_key' });
  await assert.rejects(stranger.getAccount(), (err) => err instanceof StillreelApiError && err.status === 401 && err.code === 'unauthorized');
});

test('waitForVideo: a failed render rejects with StillreelJobError carrying the record', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const { client } = counted();
  // Valid to the validator, but the photo does not exist: the render fails.
  const created = await client.createVideo({ image_inputs: [{ image_url: `${photos.urls[0]}.missing.jpg` }] });
  await assert.rejects(client.waitForVideo(created.uuid, { intervalMs: 100 }), (err) => {
    assert.ok(err instanceof StillreelJobError, String(err));
    assert.equal(err.video.uuid, created.uuid);
    assert.equal(err.video.status, 'error');
    return true;
  });
});

test('waitForVideo honours an AbortSignal', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const { client } = counted();
  const created = await client.createVideo(body(2));
  const controller = new AbortController();
  const started = Date.now();
  setTimeout(() => controller.abort(), 150);
  await assert.rejects(
    client.waitForVideo(created.uuid, { intervalMs: 5000, signal: controller.signal }),
    (err) => err.name === 'AbortError',
  );
  assert.ok(Date.now() - started < 3000, 'the wait stopped at the abort, not at the next poll');
  const already = AbortSignal.abort();
  await assert.rejects(client.waitForVideo(created.uuid, { signal: already }), { name: 'AbortError' });
});

test('combineVideoClips: joins finished clips; an invalid body throws and sends nothing', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const { client, calls } = counted();
  const source = await client.waitForVideo((await client.createVideo(body(2))).uuid, { intervalMs: 200 });
  const clips = source.video_clips.map((c) => c.uuid);
  const frame = { orientation: source.orientation, resolution: source.resolution };
  assert.equal(clips.length, 2);
  // Over the account's limit of 2 clips and a bad audio URL: refused before any request.
  calls.length = 0;
  await assert.rejects(
    client.combineVideoClips({ video_clip_uuids: [clips[0], clips[1], clips[0]], audio_url: 'ftp://x/a.mp3', ...frame }),
    (err) => {
      assert.ok(err instanceof StillreelValidationError, String(err));
      assert.deepEqual(err.details.map((d) => d.field).sort(), ['audio_url', 'video_clip_uuids']);
      return true;
    },
  );
  assert.ok(!calls.includes('POST /api/v1/combine_video_clips'), `requests: ${calls}`);
  const combined = await client.combineVideoClips({ video_clip_uuids: [clips[1], clips[0]], ...frame });
  assert.equal(combined.status, 'queued');
  const done = await client.waitForVideo(combined.uuid, { intervalMs: 200 });
  assert.equal(done.status, 'complete');
  assert.deepEqual(done.video_clips.map((c) => c.uuid), [clips[1], clips[0]]);
  const dir = mkdtempSync(join(tmpdir(), 'stillreel-combine-'));
  try {
    const file = join(dir, 'combined.mp4');
    writeFileSync(file, Buffer.from(await (await fetch(done.video_url)).arrayBuffer()));
    const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames', '-of', 'json', file], { encoding: 'utf8' }));
    assert.equal(Number(probe.streams[0].nb_read_frames), 300, JSON.stringify(probe));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('waitForVideo backs off from intervalMs by 1.5x up to 5 s', async () => {
  // A server (an injected fetch) that keeps answering `in_progress`; the poll times are kept.
  const at = [];
  const record = (status) => ({ uuid: 'u', status, progress: 10, video_clips: [] });
  const polls = (limit) => (url) => {
    at.push(Date.now());
    const done = at.length >= limit;
    return Promise.resolve(new Response(JSON.stringify(record(done ? 'complete' : 'in_progress')), { status: 200 }));
  };
  const gaps = () => at.slice(1).map((x, i) => x - at[i]);

  const quick = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sr_x', fetch: polls(6) });
  assert.equal((await quick.waitForVideo('u', { intervalMs: 100 })).status, 'complete');
  const expected = [100, 150, 225, 337.5, 506.25];
  gaps().forEach((gap, i) => assert.ok(gap >= expected[i] - 5 && gap < expected[i] + 400, `gap ${i}: ${gap} ms, expected ${expected[i]}`));

  // From 4 s the next wait would be 6 s: it is capped at 5 s.
  at.length = 0;
  const slow = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sr_x', fetch: polls(3) });
  await slow.waitForVideo('u', { intervalMs: 4000 });
  const [first, second] = gaps();
  assert.ok(first >= 3995 && first < 4500, `first gap ${first}`);
  assert.ok(second >= 4995 && second < 5500, `second gap ${second} (capped at 5 s)`);
});

/** A proxy to the real server that answers `plan[path]` statuses first (then forwards). */
async function flakyProxy(plan) {
  const seen = [];
  const proxy = createServer(async (req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    seen.push({ method: req.method, path, key: req.headers['idempotency-key'] ?? null, at: Date.now() });
    const next = plan[path]?.shift();
    if (next) {
      res.writeHead(next.status, { 'content-type': 'application/json', ...(next.headers ?? {}) });
      res.end(JSON.stringify({ error: { code: next.code ?? 'unavailable', message: 'try again', details: [] } }));
      return;
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const upstream = await fetch(`${server.url}${req.url}`, {
      method: req.method, headers: { authorization: req.headers.authorization, 'content-type': req.headers['content-type'] ?? 'application/json', ...(req.headers['idempotency-key'] ? { 'idempotency-key': req.headers['idempotency-key'] } : {}) },
      body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
    });
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${proxy.address().port}`, seen, close: () => new Promise((r) => proxy.close(r)) };
}

test('retries: GET 503 then 200; 429 waits Retry-After; keyed POST reuses its key; unkeyed POST is not retried', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const proxy = await flakyProxy({
    '/api/v1/get_projects': [{ status: 503 }, { status: 502 }],
    '/api/v1/get_engines': [{ status: 429, headers: { 'retry-after': '1' } }],
    '/api/v1/create_video': [{ status: 503 }],
    '/api/v1/create_project': [{ status: 503 }],
  });
  try {
    const client = createClient({ baseUrl: proxy.url, apiKey: server.key, retryDelayMs: 20 });
    const { projects } = await client.getProjects();
    assert.ok(projects.length >= 1);
    assert.equal(proxy.seen.filter((s) => s.path === '/api/v1/get_projects').length, 3);

    await client.getEngines();
    const engines = proxy.seen.filter((s) => s.path === '/api/v1/get_engines');
    assert.equal(engines.length, 2);
    assert.ok(engines[1].at - engines[0].at >= 950, `waited ${engines[1].at - engines[0].at} ms for Retry-After: 1`);

    const created = await client.createVideo(body(1));
    const posts = proxy.seen.filter((s) => s.path === '/api/v1/create_video');
    assert.equal(posts.length, 2);
    assert.match(posts[0].key, /^[0-9a-f-]{36}$/);
    assert.equal(posts[1].key, posts[0].key, 'the generated Idempotency-Key is reused on the retry');
    // The server saw the key: the same key again returns the same video, not a new one.
    const again = await client.createVideo(body(1), { idempotencyKey: posts[0].key });
    assert.equal(again.uuid, created.uuid);

    await assert.rejects(client.createProject({ name: 'never twice' }), (err) => err instanceof StillreelApiError && err.status === 503);
    assert.equal(proxy.seen.filter((s) => s.path === '/api/v1/create_project').length, 1);
  } finally {
    await proxy.close();
  }
});

test('retries: a keyed POST answered 409 idempotency_in_progress, then 408, is sent again with its key', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const proxy = await flakyProxy({
    '/api/v1/create_video': [{ status: 409, code: 'idempotency_in_progress' }, { status: 408, code: 'request_timeout' }],
    '/api/v1/combine_video_clips': [{ status: 409, code: 'conflict' }],
  });
  try {
    const client = createClient({ baseUrl: proxy.url, apiKey: server.key, retryDelayMs: 20 });
    const created = await client.createVideo(body(1));
    assert.ok(created.uuid);
    const posts = proxy.seen.filter((s) => s.path === '/api/v1/create_video');
    assert.equal(posts.length, 3);
    assert.ok(posts.every((p) => p.key === posts[0].key), 'one key on every attempt');
    // Any other 409 is final.
    await assert.rejects(
      client.combineVideoClips({ video_clip_uuids: ['67e55044-10b1-426f-9247-bb680e5fe0c8'], orientation: 'landscape', resolution: '720p' }),
      (err) => err instanceof StillreelApiError && err.status === 409 && err.code === 'conflict',
    );
    assert.equal(proxy.seen.filter((s) => s.path === '/api/v1/combine_video_clips').length, 1);
  } finally {
    await proxy.close();
  }
});

test('retries: network errors are retried for GETs, then reported as network_error', async () => {
  let attempts = 0;
  const failing = (url, init) => { attempts += 1; return Promise.reject(new TypeError('fetch failed')); };
  const client = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sr_x', fetch: failing, retries: 2, retryDelayMs: 1 });
  await assert.rejects(client.getTemplates(), (err) => err instanceof StillreelApiError && err.status === 0 && err.code === 'network_error');
  assert.equal(attempts, 3);
  let recovered = 0;
  const flaky = (url, init) => (recovered++ === 0 ? Promise.reject(new TypeError('reset')) : Promise.resolve(new Response('{"templates":[]}', { status: 200 })));
  const ok = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sr_x', fetch: flaky, retryDelayMs: 1 });
  assert.deepEqual(await ok.getTemplates(), { templates: [] });
});

test('createVideo checks ai_engine against the engines /get_engines lists', async () => {
  // A deployment (an injected fetch) whose engine list does or does not hold `generative`.
  const deployment = (ids) => {
    const sent = [];
    const answer = {
      '/api/v1/get_templates': { templates: [] },
      '/api/v1/get_engines': {
        engines: ids.map((id) => ({ id, default: id === 'v25', camera_motions: ['push-in', 'auto'], eased: id === 'v25', vfx_types: [] })),
      },
      '/api/v1/get_account': { clip_limit: 20 },
      '/api/v1/create_video': { uuid: 'u', status: 'queued' },
    };
    const fetch = (url) => {
      const path = new URL(url).pathname;
      sent.push(path);
      return Promise.resolve(new Response(JSON.stringify(answer[path]), { status: 200 }));
    };
    return { client: createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sr_x', fetch }), sent };
  };
  const request = { image_inputs: [{ image_url: 'https://example.com/a.jpg' }], ai_engine: 'generative' };
  const without = deployment(['v24', 'v25']);
  await assert.rejects(without.client.createVideo(request),
    (err) => err instanceof StillreelValidationError && err.details.some((d) => d.field === 'ai_engine' && d.code === 'engine_unavailable'));
  assert.ok(!without.sent.includes('/api/v1/create_video'), 'nothing sent');
  const offered = deployment(['v24', 'v25', 'generative']);
  assert.equal((await offered.client.createVideo(request)).uuid, 'u');
});

test('getVideos, getUploads, deleteUpload and deleteBrandKit send what the API takes', async () => {
  // An injected fetch that records each request and answers an empty success.
  const sent = [];
  const fetch = (url, init) => {
    const u = new URL(url);
    sent.push({ method: init.method, path: u.pathname, query: [...u.searchParams], body: init.body && JSON.parse(init.body) });
    return Promise.resolve(new Response('{"ok":true}', { status: 200 }));
  };
  const client = createClient({ baseUrl: 'http://127.0.0.1:9/', apiKey: 'sr_x', fetch });
  await client.getVideos({ q: '50% off_now', limit: 5, status: undefined, cursor: null });
  await client.getUploads({ limit: 2, cursor: '17.abc' });
  await client.getUploads();
  await client.deleteUpload('u-1');
  await client.deleteBrandKit('k-1');
  assert.deepEqual(sent, [
    { method: 'GET', path: '/api/v1/get_videos', query: [['q', '50% off_now'], ['limit', '5']], body: undefined },
    { method: 'GET', path: '/api/v1/get_uploads', query: [['limit', '2'], ['cursor', '17.abc']], body: undefined },
    { method: 'GET', path: '/api/v1/get_uploads', query: [], body: undefined },
    { method: 'POST', path: '/api/v1/delete_upload', query: [], body: { uuid: 'u-1' } },
    { method: 'POST', path: '/api/v1/delete_brand_kit', query: [], body: { uuid: 'k-1' } },
  ]);
});
