//! Named limits of the API. Each one is a promise of `docs/API-DESIGN.md`; change it there first.

/// Clips per video when an account was created without `--clip-limit` (the "plan",
/// docs/API-DESIGN.md#clip-limit).
pub const DEFAULT_CLIP_LIMIT: usize = 20;

/// Characters of word-drop text after sanitizing (docs/API-DESIGN.md#word-drop-text): more does not
/// fit a 720p frame at a readable size.
pub const WORD_DROP_MAX_CHARS: usize = 16;

/// Longest accepted media or template image URL (docs/API-DESIGN.md#urls); beyond this many servers
/// and proxies truncate or refuse the request line anyway.
pub const MAX_URL_CHARS: usize = 2048;

/// Length of a project name in characters (docs/API-DESIGN.md#records-and-endpoints).
pub const PROJECT_NAME_MAX_CHARS: usize = 100;

/// Length of a video's `title` in characters after cleaning (docs/API-DESIGN.md#titles): a
/// line a library lists whole, and the longest search (`get_videos?q=`) worth running.
pub const TITLE_MAX_CHARS: usize = 120;

/// Longest `Idempotency-Key` header value (docs/API-DESIGN.md#idempotency).
pub const IDEMPOTENCY_KEY_MAX_CHARS: usize = 255;

/// Largest request body in bytes (docs/API-DESIGN.md#wire-basics); larger bodies get 413 before any
/// parsing.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// Largest image download in bytes (`STILLREEL_MEDIA_MAX_BYTES`). Full-size camera JPEGs of
/// listings are often 10–30 MB; 40 MiB takes them with room to spare.
pub const MAX_IMAGE_BYTES: u64 = 40 * 1024 * 1024;

/// Largest audio download in bytes (`STILLREEL_MEDIA_MAX_BYTES`): a few minutes of
/// high-bitrate music or a short lossless file.
pub const MAX_AUDIO_BYTES: u64 = 50 * 1024 * 1024;

/// Most pixels (width × height) an image may have, read from its header before anything
/// decodes it. A small, highly compressed PNG can declare 16000 × 16000 pixels and make
/// ffmpeg allocate gigabytes; 50 megapixels is above any camera a listing photo comes from
/// (a 45 MP full-frame sensor is 8256 × 5504) and decodes in about 200 MB.
pub const MAX_IMAGE_PIXELS: u64 = 50_000_000;

/// Length of every clip in seconds (docs/API-DESIGN.md#rendering).
pub const CLIP_SECONDS: u32 = 5;

/// Frame rate of every render (docs/API-DESIGN.md#rendering).
pub const FPS: u32 = 30;

/// Length of the intro overlay in seconds (docs/API-DESIGN.md#rendering).
pub const INTRO_SECONDS: u32 = 3;

/// Length of the outro end card in seconds (docs/API-DESIGN.md#rendering).
pub const OUTRO_SECONDS: u32 = 3;

/// Most field errors one rejection lists: the first ones in document order (see
/// `reader::Errors`), and the answer says how many there were in all: a 1 MiB body can
/// hold half a million bad elements, and listing each made a 62 MB answer.
pub const MAX_FIELD_ERRORS: usize = 100;
