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
const engine: 'v24' | 'v25' | null = check.engine;
const count: number = sanitizeWordDropText('x').length;
declare const video: Video;
const branded: string | undefined = video.branding?.video_url;
void byField; void engine; void count; void branded;
