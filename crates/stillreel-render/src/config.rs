//! [`RenderConfig`]: how renders run (ffmpeg binary, time and memory limits, encoder settings,
//! clip parallelism). Read once by the server at start-up.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::ffmpeg::command::Encoding;

/// Default memory limit of one ffmpeg run: a 49.8-megapixel photo rendered at 1080p needs
/// between 512 and 768 MiB of data segment (381 MiB resident); 1.5 GiB leaves room for
/// effects and branding without letting one file take the machine.
pub const DEFAULT_FFMPEG_MEMORY_LIMIT: u64 = 1536 * 1024 * 1024;

/// How renders run.
#[derive(Debug, Clone)]
pub struct RenderConfig {
    /// `STILLREEL_FFMPEG`.
    pub ffmpeg: PathBuf,
    /// Wall time one ffmpeg run may take before it is killed.
    pub step_time_limit: Duration,
    pub encoding: Encoding,
    /// Clips of one job rendered at once. 2 keeps both cores of a small machine busy while
    /// one clip's encoder waits on its frames.
    pub clip_parallelism: usize,
    /// Memory limit of each ffmpeg run in bytes (`STILLREEL_FFMPEG_MAX_MEMORY`; `None`: none).
    pub ffmpeg_memory_limit: Option<u64>,
    /// `STILLREEL_DISCLOSURE_CAPTION` (default on): clips whose picture a staging or people
    /// model altered carry a "Virtually staged" caption (`command::add_caption`).
    pub disclosure_caption: bool,
    /// Storage key prefix of the outro-card cache (`brand::card_cache`): a card is the same
    /// for every video of one brand at one frame size, so it is encoded once and copied after.
    /// `None`: every branded render encodes its card.
    pub card_cache: Option<String>,
    /// Sees every frame the camera hands a clip's encoder (the reference frames the browser
    /// preview is held to). `None` in service.
    pub frame_tap: Option<FrameTap>,
}

/// A function given each camera frame of a clip as it goes to the encoder: the clip's index,
/// the frame's number and its yuv420p bytes.
#[derive(Clone)]
pub struct FrameTap(pub Arc<TapFn>);

/// What a [`FrameTap`] calls: clip index, frame number, yuv420p bytes.
pub type TapFn = dyn Fn(usize, u32, &[u8]) + Send + Sync;

impl std::fmt::Debug for FrameTap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FrameTap")
    }
}

impl Default for RenderConfig {
    fn default() -> Self {
        RenderConfig {
            ffmpeg: PathBuf::from("ffmpeg"),
            step_time_limit: Duration::from_secs(300),
            encoding: Encoding::default(),
            clip_parallelism: 2,
            ffmpeg_memory_limit: Some(DEFAULT_FFMPEG_MEMORY_LIMIT),
            disclosure_caption: true,
            card_cache: None,
            frame_tap: None,
        }
    }
}
