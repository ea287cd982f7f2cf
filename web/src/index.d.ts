// Signatures of the package's functions. The data types are generated from the Rust types
// (./types/stillreel.d.ts); this file only names the functions.
import type {
  CameraMotion, ClipCheck, ClipFactsInput, CombineVideoClipsRequest, CreateProjectRequest,
  CreateVideoRequest, Engine, EngineInfo, FieldError, Limits, Orientation, Resolution,
  SanitizedText, Template, ValidateOptions, ValidationResult, VfxTypeInfo,
} from './types/stillreel.js';

export type * from './types/stillreel.js';

/** Validates a `POST /create_video` body as the server does. Throws only when `body` is not an object or `options` has the wrong shape. */
export function validateCreateVideo(body: unknown, options?: ValidateOptions): ValidationResult<CreateVideoRequest>;
/** Validates a `POST /combine_video_clips` body as the server does before it looks the clips up. */
export function validateCombineVideoClips(body: unknown, options?: ValidateOptions): ValidationResult<CombineVideoClipsRequest>;
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
