// Signatures of `stillreel/preview` (the types live in ./index.d.ts).
import type { CreateVideoRequest, Orientation } from './types/stillreel.js';
import type { Preview, PreviewOptions, PreviewSource } from './index.js';

export type * from './index.js';

/** Loads the preview's WebAssembly module (once; `createPreview` calls it). */
export function loadPreviewModule(): Promise<unknown>;
/** 640 × 360, or 360 × 640 for a portrait video. */
export function defaultPreviewSize(orientation?: Orientation): { width: number; height: number };
export function createPreview(body: CreateVideoRequest, photos?: (PreviewSource | null | undefined)[], options?: PreviewOptions): Promise<Preview>;
