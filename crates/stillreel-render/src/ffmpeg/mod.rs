//! ffmpeg: [`command`] (argument lists as data, pure), [`clip_keys`] (where a clip is given
//! keyframes), [`concat`] (the concat demuxer's list),
//! [`runner`] (runs it; [`runner::RenderError`]), the blocking pool its runs wait on, and
//! [`reference`] (the previous renderer's clip, kept to compare the camera's frames with).

pub(crate) mod blocking;
pub mod clip_keys;
pub mod command;
pub mod concat;
pub mod reference;
pub mod runner;
