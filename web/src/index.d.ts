// Signatures of the package's functions. The data types are generated from the Rust types
// (./types/stillreel.d.ts); this file only names the functions.
import type {
  BrandingRequest, ImageInput, CameraMotion, Fit, ClipCheck, EngineList, ProjectList, Project, TemplateList, Video, ClipFactsInput, CombineVideoClipsRequest, CreateProjectRequest,
  CreateVideoRequest, Engine, EngineInfo, FieldError, Limits, Orientation, Resolution,
  SanitizedText, Template, ValidateOptions, ValidationResult, VfxTypeInfo,
  BrandKit, BrandKitBody, BrandKitList, UpdateBrandKitRequest, UploadedMedia, UploadList, VideoList, Status,
} from './types/stillreel.js';

export type * from './types/stillreel.js';

/** Validates a `POST /create_video` body as the server does. Throws only when `body` is not an object or `options` has the wrong shape. */
export function validateCreateVideo(body: unknown, options?: ValidateOptions): ValidationResult<CreateVideoRequest>;
/** Validates a `POST /combine_video_clips` body as the server does before it looks the clips up. */
export function validateCombineVideoClips(body: unknown, options?: ValidateOptions): ValidationResult<CombineVideoClipsRequest>;
/** Validates a `POST /create_brand_kit` body as the server does. */
export function validateCreateBrandKit(body: unknown, options?: ValidateOptions): ValidationResult<BrandKitBody>;
/** Validates a `POST /update_brand_kit` body as the server does. */
export function validateUpdateBrandKit(body: unknown, options?: ValidateOptions): ValidationResult<UpdateBrandKitRequest>;
/** Validates a `POST /create_project` body as the server does. */
export function validateCreateProject(body: unknown): ValidationResult<CreateProjectRequest>;
/** word-drop text as the renderer draws it, with its length and the limit. */
export function sanitizeWordDropText(text: string): SanitizedText;
/** Every vfx type with its config fields and whether the deployment renders it. */
export function vfxTypes(options?: ValidateOptions): VfxTypeInfo[];
/** The camera motions an engine can render. */
export function cameraMotions(engine: Engine): CameraMotion[];
/** The engines as `GET /get_engines` lists them for the deployment `options` describe. */
export function engines(options?: ValidateOptions): EngineInfo[];
/** The built-in templates in the `GET /get_templates` shape. */
export function builtinTemplates(): Template[];
/** The API's limits. */
export function limits(): Limits;
/** Combine's cross-clip rule: the clips' facts in `video_clip_uuids` order. */
export function checkCombineClips(orientation: Orientation, resolution: Resolution, clips: ClipFactsInput[]): ClipCheck;
/** Groups field errors by `field` path. */
export function errorsByField(errors: FieldError[]): Map<string, FieldError[]>;

/** `GET /get_account`. */
export interface Account {
  account: string;
  name: string;
  /** Clips per video the account may request. */
  clip_limit: number;
  default_project: string;
}

/** Branding as sent: `speed_ramp` may be left out (false). */
export type BrandingBody = Omit<BrandingRequest, 'speed_ramp'> & { speed_ramp?: boolean };
/** An image as sent: `camera_motion` and `fit` may be left out (auto). */
export type ImageInputBody = Omit<ImageInput, 'camera_motion' | 'fit'> & { camera_motion?: CameraMotion; fit?: Fit };
/** A `POST /create_video` body as sent: members with defaults may be left out
 * (`CreateVideoRequest` is the body with every default filled in). */
export type CreateVideoBody = Omit<CreateVideoRequest, 'image_inputs' | 'orientation' | 'resolution' | 'ai_engine' | 'branding'> & {
  image_inputs: ImageInputBody[];
  orientation?: Orientation;
  resolution?: Resolution;
  ai_engine?: Engine;
  branding?: BrandingBody;
};
/** A `POST /combine_video_clips` body as sent. */
export type CombineVideoClipsBody = Omit<CombineVideoClipsRequest, 'branding'> & { branding?: BrandingBody };

export interface ClientOptions {
  /** The deployment's origin, e.g. `https://video.example.com` (without `/api/v1`). */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Retries of network errors, 5xx and 429; default 3. */
  retries?: number;
  /** First retry delay, doubled per attempt up to 5 s; default 500. `Retry-After` wins. */
  retryDelayMs?: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface CreateOptions extends RequestOptions {
  /** Sent as `Idempotency-Key`; one is generated when absent and reused across retries. */
  idempotencyKey?: string;
}

export interface WaitOptions extends RequestOptions {
  /** Called on every change of status or progress. */
  onProgress?: (progress: number, video: Video) => void;
  /** First polling interval; grows to 5 s. Default 1000. */
  intervalMs?: number;
  /** Also wait for the branded render, when the video has one. */
  branding?: boolean;
}

/** `GET /get_videos` filters and paging. */
export interface ListOptions extends RequestOptions {
  project?: string;
  status?: Status;
  /** Only videos whose title contains this text, ignoring case (`%` and `_` match themselves); at most 120 characters. */
  q?: string;
  /** Videos per page, 1 to 100; default 20. */
  limit?: number;
  /** A previous page's `next_cursor`. */
  cursor?: string | null;
}

/** `GET /get_uploads` paging. */
export interface BrandKitListOptions extends RequestOptions {
  /** Kits per page, 1 to 100; default 20. */
  limit?: number;
  /** A previous page's `next_cursor`. */
  cursor?: string | null;
}

export interface UploadListOptions extends RequestOptions {
  /** Uploads per page, 1 to 100; default 20. */
  limit?: number;
  /** A previous page's `next_cursor`. */
  cursor?: string | null;
}

/** A brand kit as sent: `speed_ramp` may be left out (false). */
export type BrandKitInput = Omit<BrandKitBody, 'speed_ramp'> & { speed_ramp?: boolean };

export interface UploadOptions extends RequestOptions {
  /** The file's type; defaults to a Blob's `type`. */
  contentType?: string;
}

export interface StillreelClient {
  /**
   * One page of the account's videos, newest first: `{videos, next_cursor}`. Pass the answer's
   * `next_cursor` as `cursor` for the next page (`null` on the last one).
   */
  getVideos(options?: ListOptions): Promise<VideoList>;
  /** Every video of the account (or of `project`, or with `status`), page after page. */
  listVideos(options?: Omit<ListOptions, 'cursor'>): AsyncGenerator<Video, void, undefined>;
  /** `POST /delete_video`: the video and its files are gone; `getVideo` answers 404 after. */
  deleteVideo(uuid: string, options?: RequestOptions): Promise<{ uuid: string; deleted: boolean }>;
  /**
   * `POST /upload_media`: stores a picture or a soundtrack and resolves with
   * `{uuid, url, media_type, bytes, created_at}`; `url` works as `image_url`, `audio_url` or a
   * template image. `data` is a Blob or File (its `type` is the content type unless `contentType` is
   * given), an ArrayBuffer or a typed array. Not retried (each attempt stores a file).
   */
  uploadMedia(data: Blob | ArrayBuffer | ArrayBufferView, options?: UploadOptions): Promise<UploadedMedia>;
  /**
   * One page of the account's uploads, newest first: `{uploads, next_cursor}`, each element as
   * `uploadMedia` resolved. Pass `next_cursor` as `cursor` for the next page.
   */
  getUploads(options?: UploadListOptions): Promise<UploadList>;
  /**
   * `POST /delete_upload`: the file leaves storage and its bytes no longer count against the
   * quota. Rejects with status 409 (`upload_in_use`) while a queued or rendering video uses it,
   * 404 for an upload the account does not have.
   */
  deleteUpload(uuid: string, options?: RequestOptions): Promise<{ uuid: string; deleted: boolean }>;
  /** Checks `body` (name, intro, outro, speed_ramp, audio_url) with the server's rules, then saves the kit. */
  createBrandKit(body: BrandKitInput, options?: RequestOptions): Promise<BrandKit>;
  /** Replaces kit `body.uuid` with the rest of `body` (members left out are cleared). */
  updateBrandKit(body: BrandKitInput & { uuid: string }, options?: RequestOptions): Promise<BrandKit>;
  /**
   * One page of the account's brand kits, oldest first: `{brand_kits, next_cursor}`. Pass
   * `next_cursor` as `cursor` for the next page.
   */
  getBrandKits(options?: BrandKitListOptions): Promise<BrandKitList>;
  /** `POST /delete_brand_kit`. Videos already made or queued with the kit keep its branding (a kit is copied into each video). */
  deleteBrandKit(uuid: string, options?: RequestOptions): Promise<{ uuid: string; deleted: boolean }>;
  /** Checks `body` against the deployment's options (a `StillreelValidationError` before any request), then `POST /create_video`. */
  createVideo(body: CreateVideoBody, options?: CreateOptions): Promise<Video>;
  /** Checks `body`'s own rules, then `POST /combine_video_clips` (the clips are checked by the server). */
  combineVideoClips(body: CombineVideoClipsBody, options?: CreateOptions): Promise<Video>;
  createProject(body: CreateProjectRequest, options?: RequestOptions): Promise<Project>;
  getVideo(uuid: string, options?: RequestOptions): Promise<Video>;
  getProjects(options?: RequestOptions): Promise<ProjectList>;
  getTemplates(options?: RequestOptions): Promise<TemplateList>;
  getEngines(options?: RequestOptions): Promise<EngineList>;
  getAccount(options?: RequestOptions): Promise<Account>;
  /**
   * Polls `GET /get_video` until the render is complete (and, with `branding`, the branded
   * render too). Resolves with the finished record; a failed render rejects with a
   * `StillreelJobError`.
   */
  waitForVideo(uuid: string, options?: WaitOptions): Promise<Video>;
  /** The validator options of the deployment (templates, vfx, engines, default engine, clip limit), fetched once. */
  validationOptions(): Promise<ValidateOptions>;
}

/**
 * A client of one deployment. `fetch` defaults to the global one. `retries` (default 3) and
 * `retryDelayMs` (default 500, doubled per attempt up to 5 s) tune the retries of network
 * errors, 5xx and 429.
 */
export function createClient(options: ClientOptions): StillreelClient;

/** A non-2xx answer: the envelope's `code`, `message` and `details`; status 0 and code `network_error` when the server could not be reached. */
export class StillreelApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: FieldError[];
}

/** A body the server would refuse (422), found before sending it: no request was made. */
export class StillreelValidationError extends StillreelApiError {
  readonly status: 422;
  readonly code: 'validation_failed';
}

/** A render that ended in `error`. */
export class StillreelJobError extends Error {
  readonly video: Video;
}

// ---- The preview (docs/PREVIEW.md): a second WebAssembly module, loaded on first use. ----

/** A photo for the preview: a File or Blob, its bytes, or a URL the page may fetch. */
export type PreviewSource = Blob | ArrayBuffer | Uint8Array | string | URL;

/** Options of `createPreview`. */
export interface PreviewOptions {
  /** The preview's size (even; default 640 × 360, portrait 360 × 640). */
  width?: number;
  height?: number;
  /** Depth maps by row: grey PNGs, brighter is nearer (as the server stores them). */
  depthMaps?: (PreviewSource | null | undefined)[];
}

/** A clip's state in the preview. */
export interface PreviewClipInfo {
  /** Whether its frames can be drawn. */
  ready: boolean;
  /** The move the camera makes (`auto` resolved as the server resolves it). */
  motion: Exclude<CameraMotion, 'auto'> | null;
  /** Whether a depth map bends the frames. */
  depth: boolean;
  /** Why it is not drawn, why its depth map is unused, or how it was decoded. */
  note: string | null;
}

/** One clip's frame shown at a moment. */
export interface PreviewShot {
  clip: number;
  /** Frame within the clip, 0 to 149. */
  frame: number;
}

/** What a frame of the previewed video shows. */
export type PreviewMoment =
  | {
      kind: 'clips';
      /** Frame of the stitched video shown (differs from the frame under the speed ramp). */
      main_frame: number;
      shot: PreviewShot;
      /** The next clip during a blended transition. */
      next: PreviewShot | null;
      /** xfade's progress: 1 at the join's first frame, towards 0 at its last. */
      progress: number;
      /** Whether the intro is drawn over this frame. */
      intro: boolean;
    }
  | { kind: 'outro'; frame: number };

/** A frame's moment and the overlays' opacities on it (a caption's follows its clip through a blend). */
export interface PreviewFrame {
  moment: PreviewMoment;
  fades: { intro: number; outro: number; caption: number; next_caption: number };
}

/** A template field's box, in pixels of the preview. */
export interface PreviewFieldBox {
  key: string;
  value: string | null;
  rect: [number, number, number, number];
}

/** The intro or outro card as the preview draws it (boxes at the template's layout). */
export interface PreviewCard {
  template: string;
  name: string;
  band: [number, number] | null;
  background: string | null;
  accent: string | null;
  fields: PreviewFieldBox[];
}

/** A caption at the renderer's layout. */
export interface PreviewCaption {
  size: number;
  plate_color: string;
  plate_opacity: number;
  text_color: string;
  lines: { text: string; plate: [number, number, number, number]; x: number; y: number }[];
}

/** Everything drawn over the camera's pixels. */
export interface PreviewOverlays {
  clips: { caption: PreviewCaption | null; effect: string | null }[];
  intro: PreviewCard | null;
  outro: PreviewCard | null;
  engine_note: string | null;
}

/** A running playback. */
export interface PreviewPlayback {
  stop(): void;
  /** Resolves when the playback ends or is stopped. */
  done: Promise<void>;
}

/** The preview of one video. */
export interface Preview {
  readonly width: number;
  readonly height: number;
  /** Frames of the previewed video (its branded render when the body asks for branding). */
  readonly frames: number;
  readonly fps: number;
  readonly duration: number;
  /** Frames of one clip (150). */
  readonly clipFrames: number;
  readonly overlays: PreviewOverlays;
  clip(index: number): PreviewClipInfo;
  setPhoto(index: number, photo: PreviewSource, depthMap?: PreviewSource | null, options?: { darkerIsNearer?: boolean }): Promise<PreviewClipInfo>;
  moment(frame: number): PreviewFrame;
  /** Frame `n` of clip `index` as the renderer's yuv420p bytes; null when the clip cannot draw. */
  clipYuv(index: number, n: number): Uint8Array | null;
  drawFrame(canvas: HTMLCanvasElement | OffscreenCanvas, frame: number): PreviewMoment;
  drawClipFrame(canvas: HTMLCanvasElement | OffscreenCanvas, index: number, n: number): void;
  /** The music's level (1 to 0) at `frame`: the renderer's fade-out over the outro card, else the last second. */
  musicGain(frame: number): number;
  /** Where the music fades out, in frames of the video: the outro card, else the last second. */
  readonly musicFade: { start: number; frames: number };
  /**
   * Plays in real time from frame `from` (the whole video, or clip `clip`); stopped by `free()`.
   * `audio`: an element holding the music, played along with the whole video (looped, faded).
   */
  play(canvas: HTMLCanvasElement | OffscreenCanvas, options?: { clip?: number; from?: number; loop?: boolean; onFrame?: (frame: number) => void; audio?: HTMLMediaElement }): PreviewPlayback;
  free(): void;
}

/**
 * The preview of a video: `body` as `validateCreateVideo(body).normalized` returned it, and one
 * photo per `image_inputs` row. Loads the preview module on first use.
 */
export function createPreview(body: CreateVideoRequest, photos?: (PreviewSource | null | undefined)[], options?: PreviewOptions): Promise<Preview>;
