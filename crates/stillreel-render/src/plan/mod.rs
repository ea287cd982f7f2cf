//! The pure plans around the camera's clips: a whole video ([`video_plan`]), the seams of
//! blended joins ([`transition`]) and the sound under a video ([`sound`]).

pub mod sound;
pub mod transition;
pub mod video_plan;
