// The client's uploads, library and brand kits against a real `stillreel serve`
// (started by e2e/target.mjs from the built binary).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createClient, StillreelApiError, StillreelValidationError, validateCreateBrandKit, validateCreateVideo,
} from 'stillreel';
import { target } from '../e2e/target.mjs';

let server;
let dir;
const skip = { skip: false };

before(async () => {
  server = await target({ own: true });
  if (!server.live) skip.skip = server.why;
  dir = mkdtempSync(join(tmpdir(), 'stillreel-library-'));
});

after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function counted() {
  const calls = [];
  const client = createClient({
    baseUrl: server.url, apiKey: server.key,
    fetch: (url, init) => { calls.push(`${init.method} ${new URL(url).pathname}`); return fetch(url, init); },
  });
  return { client, calls };
}

function photo(name, source) {
  const file = join(dir, name);
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', `${source}=s=1600x1000`, '-frames:v', '1', '-q:v', '3', '-y', file]);
  return readFileSync(file);
}

const kit = {
  name: 'Acme Realty',
  outro: { template: 'outro-minimal', config: { brokerage: { value: 'Acme Realty' } } },
};

test('validateCreateBrandKit gives the server\'s details; an invalid kit sends nothing', async (t) => {
  const local = validateCreateBrandKit({ intro: { template: 'nope' }, brand_kit: 'x' });
  assert.equal(local.ok, false);
  assert.deepEqual(local.errors.map((e) => [e.field, e.code]), [
    ['intro.template', 'template_unknown'], ['brand_kit', 'unknown_field'], ['name', 'required'],
  ]);
  if (skip.skip) return t.skip(skip.skip);
  const { client, calls } = counted();
  await assert.rejects(client.createBrandKit({ name: '' }), (err) => {
    assert.ok(err instanceof StillreelValidationError);
    assert.deepEqual(err.details.map((e) => [e.field, e.code]), [['name', 'empty']]);
    return true;
  });
  assert.ok(!calls.includes('POST /api/v1/create_brand_kit'), calls.join(', '));
  // The server answers the same for the same body.
  const raw = await fetch(`${server.url}/api/v1/create_brand_kit`, {
    method: 'POST', headers: { Authorization: server.key, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: '' }),
  });
  assert.equal(raw.status, 422);
  assert.deepEqual((await raw.json()).error.details, validateCreateBrandKit({ name: '' }).errors);
});

test('upload photos, save a brand kit, render with it, list, delete', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const { client } = counted();
  const front = await client.uploadMedia(new Blob([photo('a.jpg', 'testsrc2')], { type: 'image/jpeg' }));
  assert.equal(front.media_type, 'image/jpeg');
  assert.ok(front.url.startsWith(`${server.url}/files/uploads/`), front.url);
  const room = await client.uploadMedia(photo('b.jpg', 'smptehdbars'), { contentType: 'image/jpeg' });
  await assert.rejects(client.uploadMedia(new Uint8Array([1, 2, 3])), TypeError);
  await assert.rejects(client.uploadMedia(new Blob(['<html>'], { type: 'image/png' })), (err) => {
    assert.ok(err instanceof StillreelApiError);
    assert.equal(err.status, 415);
    assert.equal(err.code, 'unsupported_media');
    return true;
  });

  const saved = await client.createBrandKit(kit);
  assert.equal(saved.name, 'Acme Realty');
  const updated = await client.updateBrandKit({ ...kit, uuid: saved.uuid, speed_ramp: true });
  assert.equal(updated.speed_ramp, true);
  const { brand_kits: kits } = await client.getBrandKits();
  assert.deepEqual(kits.map((k) => k.uuid), [saved.uuid]);

  const created = await client.createVideo({
    image_inputs: [{ image_url: front.url }, { image_url: room.url }],
    branding: { brand_kit: saved.uuid },
  });
  assert.equal(created.branding.templates.outro.template, 'outro-minimal');
  assert.equal(created.branding.speed_ramp, true);
  const video = await client.waitForVideo(created.uuid, { intervalMs: 200, branding: true });
  assert.equal(video.status, 'complete');
  assert.equal(video.branding.status, 'complete');
  const poster = await fetch(video.poster_url);
  assert.equal(poster.headers.get('content-type'), 'image/jpeg');
  assert.equal(video.video_clips.length, 2);
  for (const clip of video.video_clips) {
    const still = await fetch(clip.thumbnail_url);
    assert.equal(still.status, 200, clip.thumbnail_url);
    const bytes = new Uint8Array(await still.arrayBuffer());
    assert.deepEqual([...bytes.slice(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
  }

  const page = await client.getVideos({ limit: 1 });
  assert.equal(page.videos[0].uuid, video.uuid);
  const all = [];
  for await (const v of client.listVideos({ limit: 1 })) all.push(v.uuid);
  assert.ok(all.includes(video.uuid));
  assert.equal(new Set(all).size, all.length, 'no video twice');

  assert.deepEqual(await client.deleteVideo(video.uuid), { uuid: video.uuid, deleted: true });
  await assert.rejects(client.getVideo(video.uuid), (err) => err.status === 404);
  assert.equal((await fetch(video.video_url)).status, 404, 'the file left storage');
});

test('titles: cleaned as the wasm module cleans them, echoed, and found by getVideos({q})', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const { client } = counted();
  const front = await client.uploadMedia(new Blob([photo('t.jpg', 'testsrc2')], { type: 'image/jpeg' }));
  const body = { image_inputs: [{ image_url: front.url }], title: '  50% off\nOak Lane\u202e ' };
  const local = validateCreateVideo(body);
  assert.equal(local.ok, true, JSON.stringify(local.errors));
  const created = await client.createVideo(body);
  assert.equal(created.title, '50% off Oak Lane');
  assert.equal(created.title, local.normalized.title, 'the server and the wasm module clean alike');
  const plain = await client.createVideo({ image_inputs: [{ image_url: front.url }] });
  assert.equal(plain.title, null);

  const found = (await client.getVideos({ q: 'OAK lane' })).videos.map((v) => v.uuid);
  assert.deepEqual(found, [created.uuid]);
  assert.deepEqual((await client.getVideos({ q: '50%' })).videos.map((v) => v.uuid), [created.uuid]);
  assert.deepEqual((await client.getVideos({ q: '5_%' })).videos, [], '_ is a plain character');
  const all = [];
  for await (const v of client.listVideos({ q: 'oak', limit: 1 })) all.push(v.uuid);
  assert.deepEqual(all, [created.uuid]);

  // Too long: the same details from the wasm module and the server.
  const long = { image_inputs: [{ image_url: front.url }], title: 'x'.repeat(121) };
  const refused = validateCreateVideo(long);
  assert.deepEqual(refused.errors.map((e) => [e.field, e.code]), [['title', 'too_long']]);
  const raw = await fetch(`${server.url}/api/v1/create_video`, {
    method: 'POST', headers: { Authorization: server.key, 'Content-Type': 'application/json' }, body: JSON.stringify(long),
  });
  assert.equal(raw.status, 422);
  assert.deepEqual((await raw.json()).error.details, refused.errors);
  await assert.rejects(client.getVideos({ q: 'x'.repeat(121) }), (err) => {
    assert.ok(err instanceof StillreelApiError);
    assert.deepEqual(err.details.map((e) => [e.field, e.code]), [['q', 'too_long']]);
    return true;
  });
});

test('uploads are listed and deleted; a file a queued video uses is kept; kits are deleted', async (t) => {
  if (skip.skip) return t.skip(skip.skip);
  const { client } = counted();
  const first = await client.uploadMedia(photo('l1.jpg', 'testsrc2'), { contentType: 'image/jpeg' });
  await new Promise((resolve) => setTimeout(resolve, 5));
  const second = await client.uploadMedia(photo('l2.jpg', 'smptehdbars'), { contentType: 'image/jpeg' });
  const page = await client.getUploads({ limit: 1 });
  assert.deepEqual(page.uploads, [second], 'newest first, as uploadMedia answered');
  const rest = await client.getUploads({ limit: 100, cursor: page.next_cursor });
  assert.equal(rest.uploads[0].uuid, first.uuid);

  assert.deepEqual(await client.deleteUpload(second.uuid), { uuid: second.uuid, deleted: true });
  assert.equal((await fetch(second.url)).status, 404, 'the file left storage');
  assert.ok(!(await client.getUploads({ limit: 100 })).uploads.some((u) => u.uuid === second.uuid));
  await assert.rejects(client.deleteUpload(second.uuid), (err) => err instanceof StillreelApiError && err.status === 404 && err.code === 'not_found');

  const video = await client.createVideo({ image_inputs: [{ image_url: first.url }] });
  await assert.rejects(client.deleteUpload(first.uuid), (err) => err instanceof StillreelApiError && err.status === 409 && err.code === 'upload_in_use');
  await client.waitForVideo(video.uuid, { intervalMs: 200 });
  assert.equal((await client.deleteUpload(first.uuid)).deleted, true, 'free once the video is complete');

  const saved = await client.createBrandKit(kit);
  assert.deepEqual(await client.deleteBrandKit(saved.uuid), { uuid: saved.uuid, deleted: true });
  assert.ok(!(await client.getBrandKits()).brand_kits.some((k) => k.uuid === saved.uuid));
  await assert.rejects(client.deleteBrandKit(saved.uuid), (err) => err instanceof StillreelApiError && err.status === 404);
});
