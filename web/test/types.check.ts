// Compiled by `npm run typecheck` (tsc --noEmit): the generated types and the function
// signatures fit together and describe what the functions return.
import {
  validateCreateVideo, vfxTypes, checkCombineClips, sanitizeWordDropText, errorsByField,
  type CreateVideoRequest, type FieldError, type ValidationResult, type Video, type Vfx,
} from 'stillreel';

const result: ValidationResult<CreateVideoRequest> = validateCreateVideo({ image_inputs: [] }, { clip_limit: 5 });
if (result.ok && result.normalized) {
  const first = result.normalized.image_inputs[0];
  const motion: 'push-in' | 'push-out' | 'orbit-left' | 'orbit-right' | 'auto' = first.camera_motion;
  const vfx: Vfx | undefined = first.vfx;
  if (vfx?.type === 'word-drop') {
    const text: string = vfx.config.text;
    void text;
  }
  void motion;
}
const errors: FieldError[] = result.errors;
const byField: Map<string, FieldError[]> = errorsByField(errors);
for (const info of vfxTypes()) {
  for (const field of info.config_fields) {
    if (field.type === 'choice') { const values: string[] = field.values; void values; }
    else { const max: number = field.max_length; void max; }
  }
}
const check = checkCombineClips('landscape', '720p', [{ orientation: 'portrait', resolution: '720p', ai_engine: 'v24' }]);
const engine: 'v24' | 'v25' | 'generative' | null = check.engine;
const count: number = sanitizeWordDropText('x').length;
declare const video: Video;
const branded: string | undefined = video.branding?.video_url;
void byField; void engine; void count; void branded;

// The client: typed requests and answers, the error classes' members.
import {
  createClient, StillreelApiError, StillreelJobError, StillreelValidationError,
  type Account, type StillreelClient, type WaitOptions,
} from 'stillreel';

async function usage(): Promise<string> {
  const client: StillreelClient = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'sr_x', fetch: globalThis.fetch });
  const account: Account = await client.getAccount();
  const limit: number = account.clip_limit;
  const created: Video = await client.createVideo({ image_inputs: [{ image_url: 'https://example.com/a.jpg' }] }, { idempotencyKey: 'order-1' });
  const options: WaitOptions = { intervalMs: 500, branding: true, signal: AbortSignal.timeout(60_000), onProgress: (p: number, v: Video) => void [p, v.status] };
  try {
    const done = await client.waitForVideo(created.uuid, options);
    return done.branding?.video_url ?? done.video_url;
  } catch (err) {
    if (err instanceof StillreelValidationError) { const d: FieldError[] = err.details; void d; }
    if (err instanceof StillreelApiError) { const s: number = err.status; const c: string = err.code; void s; void c; }
    if (err instanceof StillreelJobError) { const v: Video = err.video; return v.error?.message ?? ''; }
    throw err;
  } finally {
    const names: string[] = (await client.getProjects()).projects.map((p) => p.name);
    const ids: string[] = (await client.getTemplates()).templates.map((t) => t.id);
    const engineIds: string[] = (await client.getEngines()).engines.map((e) => e.id);
    void names; void ids; void engineIds; void limit;
    await client.createProject({ name: 'x' });
    const titled: Video = await client.createVideo({ image_inputs: [{ image_url: 'https://example.com/a.jpg' }], title: '12 Oak Lane' });
    const title: string | null = titled.title;
    const found: Video[] = (await client.getVideos({ q: 'oak', limit: 5 })).videos;
    const uploads = await client.getUploads({ limit: 10, cursor: null });
    const sizes: number[] = uploads.uploads.map((u) => u.bytes);
    const next: string | null = uploads.next_cursor;
    const gone: boolean = (await client.deleteUpload(uploads.uploads[0].uuid)).deleted;
    const kitGone: boolean = (await client.deleteBrandKit('kit-uuid')).deleted;
    void title; void found; void sizes; void next; void gone; void kitGone;
    await client.combineVideoClips({ video_clip_uuids: [], orientation: 'landscape', resolution: '720p' });
  }
}
void usage;

// The preview: from the main entry (loaded lazily) and from `stillreel/preview`.
import { createPreview, type Preview, type PreviewMoment, type PreviewClipInfo } from 'stillreel';
import { createPreview as createPreviewDirect, defaultPreviewSize } from 'stillreel/preview';

async function previewTypes(body: CreateVideoRequest, photo: Blob, canvas: HTMLCanvasElement): Promise<void> {
  const preview: Preview = await createPreview(body, [photo, 'https://example.com/a.jpg', null], { width: 640, height: 360 });
  const info: PreviewClipInfo = preview.clip(0);
  const motion: 'push-in' | 'push-out' | 'orbit-left' | 'orbit-right' | null = info.motion;
  const moment: PreviewMoment = preview.drawFrame(canvas, 10);
  if (moment.kind === 'clips') {
    const clip: number = moment.shot.clip;
    const progress: number = moment.progress;
    void clip;
    void progress;
  }
  const yuv: Uint8Array | null = preview.clipYuv(0, 75);
  const playback = preview.play(canvas, { clip: 0 });
  await playback.done;
  const gain: number = preview.musicGain(preview.frames - 1);
  void gain;
  const withMusic = preview.play(canvas, { from: 30, audio: new Audio('/files/music.mp3') });
  withMusic.stop();
  const size: { width: number; height: number } = defaultPreviewSize('portrait');
  const direct: Preview = await createPreviewDirect(body, [], size);
  void motion;
  void yuv;
  void direct;
  preview.free();
}
void previewTypes;
