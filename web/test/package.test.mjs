// Node tests of the built package, imported by its name as an app would (package
// self-reference through "exports"; the `node` condition picks src/node.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  validateCreateVideo,
  validateCombineVideoClips,
  validateCreateProject,
  sanitizeWordDropText,
  vfxTypes,
  cameraMotions,
  engines,
  builtinTemplates,
  limits,
  checkCombineClips,
  errorsByField,
} from 'stillreel';

const image = (url = 'https://example.com/a.jpg', extra = {}) => ({ image_url: url, ...extra });
const UUID = '67e55044-10b1-426f-9247-bb680e5fe0c8';

test('a valid create_video body comes back normalized', () => {
  const result = validateCreateVideo({ image_inputs: [image()] });
  assert.deepEqual(result, {
    ok: true,
    errors: [],
    normalized: {
      image_inputs: [{ image_url: 'https://example.com/a.jpg', camera_motion: 'auto', fit: 'auto' }],
      orientation: 'landscape',
      resolution: '720p',
      ai_engine: 'v25',
    },
  });
  // Plain objects, not Maps: the result is JSON-compatible.
  assert.equal(Object.getPrototypeOf(result.normalized), Object.prototype);
});

test('normalized is built on first read and then behaves as a plain member', () => {
  const body = { image_inputs: [image(), image('https://example.com/b.jpg', { camera_motion: 'push-in' })] };
  const result = validateCreateVideo(body);
  assert.deepEqual(Object.keys(result), ['ok', 'errors', 'normalized']);
  const first = result.normalized;
  assert.equal(result.normalized, first, 'the same object on every read');
  first.resolution = '1080p';
  assert.equal(result.normalized.resolution, '1080p', 'changes to it are kept');
  // JSON, spreading and structured cloning see the value, as with a data member.
  assert.equal(JSON.parse(JSON.stringify(result)).normalized.resolution, '1080p');
  assert.equal({ ...result }.normalized, first);
  assert.deepEqual(structuredClone(result).normalized, first);
  result.normalized = { replaced: true };
  assert.deepEqual(result.normalized, { replaced: true });
  // Unread, it still serializes in full.
  const unread = validateCreateVideo(body);
  assert.deepEqual(JSON.parse(JSON.stringify(unread)), { ok: true, errors: [], normalized: validateCreateVideo(body).normalized });
  assert.equal(unread.normalized.image_inputs[1].camera_motion, 'push-in');
});

test('normalized is the body as validated: later changes to body or options do not reach it', () => {
  const body = { image_inputs: [image()] };
  const options = { default_engine: 'v24' };
  const result = validateCreateVideo(body, options);
  body.image_inputs[0].image_url = 'ftp://changed.example/a.jpg';
  body.resolution = '1080p';
  options.default_engine = 'v25';
  assert.equal(result.normalized.image_inputs[0].image_url, 'https://example.com/a.jpg');
  assert.equal(result.normalized.resolution, '720p');
  assert.equal(result.normalized.ai_engine, 'v24');
  // The other validators keep theirs the same way.
  const project = { name: ' Elm ' };
  const made = validateCreateProject(project);
  project.name = '';
  assert.deepEqual(made.normalized, { name: 'Elm' });
  const second = '0b1e4f0c-58a4-4c57-9a3e-2f7f5d0d9a11';
  const combine = { video_clip_uuids: [UUID, second], orientation: 'portrait', resolution: '1080p' };
  const joined = validateCombineVideoClips(combine);
  combine.video_clip_uuids = [];
  assert.equal(joined.ok, true, JSON.stringify(joined.errors));
  assert.deepEqual(joined.normalized.video_clip_uuids, [UUID, second]);
});

test('every mistake is reported with the server path and code', () => {
  const result = validateCreateVideo({
    image_inputs: [
      image('ftp://example.com/a.jpg', { camera_motion: 'orbit-left' }),
      image(undefined, { vfx: { type: 'shadows', config: {} } }),
      image(undefined, { vfx: { type: 'word-drop', config: { text: '🏡🏡' } } }),
    ],
    ai_engine: 'v24',
    colour: 'red',
  });
  assert.equal(result.ok, false);
  assert.equal(result.normalized, null);
  const pairs = result.errors.map((e) => `${e.field} ${e.code}`);
  assert.deepEqual(pairs.sort(), [
    'colour unknown_field',
    'image_inputs[0].camera_motion engine_unsupported',
    'image_inputs[0].image_url invalid_url',
    'image_inputs[1].vfx.config config_not_allowed',
    'image_inputs[2].vfx.config.text empty_after_sanitizing',
  ]);
  for (const e of result.errors) assert.ok(e.message.length > 0, `message at ${e.field}`);
  const grouped = errorsByField(result.errors);
  assert.equal(grouped.get('colour')[0].code, 'unknown_field');
});

test('options carry what only a deployment knows', () => {
  const body = { image_inputs: [image(), image(), image()] };
  const limited = validateCreateVideo(body, { clip_limit: 2 });
  assert.deepEqual(limited.errors.map((e) => [e.field, e.code]), [['image_inputs', 'too_many']]);
  assert.equal(validateCreateVideo(body, { default_engine: 'v24' }).normalized.ai_engine, 'v24');
  const staged = { image_inputs: [image(undefined, { vfx: { type: 'virtual-staging' } })] };
  assert.equal(validateCreateVideo(staged).errors[0].code, 'vfx_unavailable');
  const everything = vfxTypes().map((v) => v.type);
  assert.equal(validateCreateVideo(staged, { available_vfx: everything }).ok, true);
  // The generative engine exists only where /get_engines lists it (a clip role).
  const generative = { image_inputs: [image()], ai_engine: 'generative' };
  assert.deepEqual(validateCreateVideo(generative).errors.map((e) => [e.field, e.code]), [['ai_engine', 'engine_unavailable']]);
  const withClipRole = { available_engines: ['v24', 'v25', 'generative'], available_vfx: everything };
  assert.equal(validateCreateVideo(generative, withClipRole).ok, true);
  const stagedGenerative = { ...staged, ai_engine: 'generative' };
  assert.deepEqual(validateCreateVideo(stagedGenerative, withClipRole).errors.map((e) => [e.field, e.code]), [['image_inputs[0].vfx.type', 'vfx_unavailable']]);
  // The /get_templates response is accepted as is.
  const response = { templates: builtinTemplates() };
  const branded = { image_inputs: [image()], branding: { outro: { template: 'outro-minimal' } } };
  assert.equal(validateCreateVideo(branded, { templates: response }).ok, validateCreateVideo(branded).ok);
  const none = validateCreateVideo(branded, { templates: [] });
  assert.deepEqual(none.errors.map((e) => [e.field, e.code]), [['branding.outro.template', 'template_unknown']]);
});

test('only a value of the wrong shape throws', () => {
  for (const bad of [null, undefined, 'text', 3, [image()]]) {
    assert.throws(() => validateCreateVideo(bad), Error, `body ${JSON.stringify(bad)}`);
  }
  assert.throws(() => validateCreateVideo({ image_inputs: [image()] }, { clip_limit: 'ten' }), /invalid options/);
  assert.throws(() => validateCreateVideo({ image_inputs: [image()] }, { clip_limt: 3 }), /invalid options/);
  // An empty object is user input, not a wrong shape.
  assert.deepEqual(validateCreateVideo({}).errors.map((e) => e.code), ['required']);
});

test('combine_video_clips and create_project', () => {
  const ok = validateCombineVideoClips({
    video_clip_uuids: [UUID, UUID],
    orientation: 'portrait',
    resolution: '1080p',
    branding: true,
  });
  assert.equal(ok.ok, true);
  assert.deepEqual(ok.normalized.branding, { speed_ramp: true });
  const bad = validateCombineVideoClips({ video_clip_uuids: ['nope'] });
  assert.deepEqual(bad.errors.map((e) => [e.field, e.code]).sort(), [
    ['orientation', 'required'],
    ['resolution', 'required'],
    ['video_clip_uuids[0]', 'invalid_uuid'],
  ]);
  assert.deepEqual(validateCreateProject({ name: '  Elm Street ' }).normalized, { name: 'Elm Street' });
  assert.equal(validateCreateProject({ name: '' }).ok, false);
});

test('the word-drop sanitizer feeds an "n / 16" counter', () => {
  assert.deepEqual(sanitizeWordDropText('  Café 🏡 новый '), { text: 'Café', length: 4, max: 16 });
  assert.equal(sanitizeWordDropText('x'.repeat(20)).length, 20);
  assert.equal(limits().word_drop_max_chars, 16);
});

test('catalogs a form is built from', () => {
  const vfx = vfxTypes();
  assert.equal(vfx.length, 13);
  const withConfig = vfx.filter((v) => v.config_fields.length > 0).map((v) => v.type);
  assert.deepEqual(withConfig, ['virtual-staging', 'word-drop', 'lifestyle']);
  const wordDrop = vfx.find((v) => v.type === 'word-drop');
  assert.deepEqual(wordDrop.config_fields.map((f) => [f.key, f.type, f.required, f.default]), [
    ['text', 'text', true, null],
    ['color', 'choice', false, 'gold'],
  ]);
  assert.deepEqual(cameraMotions('v24'), ['push-in', 'push-out', 'auto']);
  assert.ok(cameraMotions('v25').includes('orbit-left'));
  assert.throws(() => cameraMotions('v9'));
  const list = engines({ default_engine: 'v24' });
  assert.deepEqual(list.map((e) => [e.id, e.default]), [['v24', true], ['v25', false]]);
  const offered = engines({ available_engines: ['v24', 'v25', 'generative'] });
  assert.deepEqual(offered.map((e) => e.id), ['v24', 'v25', 'generative']);
  assert.ok(offered[2].vfx_types.every((t) => !['virtual-staging', 'lifestyle', 'spin-ceiling-fan'].includes(t)));
  assert.ok(cameraMotions('generative').includes('orbit-left'));
  const templates = builtinTemplates();
  assert.ok(templates.filter((t) => t.slot === 'intro').length >= 2);
  assert.ok(templates.filter((t) => t.slot === 'outro').length >= 2);
  assert.ok(templates.every((t) => !('style' in t)));
});

test('the combine rule on the clips the form picked', () => {
  const clip = (orientation, ai_engine) => ({ orientation, resolution: '720p', ai_engine });
  const check = checkCombineClips('landscape', '720p', [clip('landscape', 'v25'), clip('portrait', 'v24')]);
  assert.equal(check.ok, false);
  assert.deepEqual(check.errors.map((e) => [e.field, e.code]), [['video_clip_uuids[1]', 'mismatch']]);
  assert.deepEqual(checkCombineClips('landscape', '720p', [clip('landscape', 'v24')]), {
    ok: true, errors: [], engine: 'v24',
  });
});
