// The package's functions: the wasm exports as they are, plus small form helpers.
export {
  validateCreateVideo,
  validateCombineVideoClips,
  validateCreateProject,
  validateCreateBrandKit,
  validateUpdateBrandKit,
  sanitizeWordDropText,
  vfxTypes,
  cameraMotions,
  engines,
  builtinTemplates,
  limits,
  checkCombineClips,
} from '../pkg/stillreel_wasm.js';
export { errorsByField } from './helpers.js';
export { createClient, StillreelApiError, StillreelValidationError, StillreelJobError } from './client.js';

// The preview's code and its WebAssembly module load only when a page first asks for one.
export const createPreview = (...args) => import('./preview.js').then((m) => m.createPreview(...args));
