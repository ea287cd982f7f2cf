//! How a created video's clips move, which the clip step renders and the branding step
//! follows.

use crate::repo::render as records;

/// How the clips of a `create_video` video move: through their ends when the video is to be
/// branded with the speed ramp (so the ramp shows, docs/EFFECTS.md "Speed ramp"), else the
/// engine's own eased curve.
pub(super) fn clip_pace(
    input: &records::RenderInput,
) -> stillreel_camera::geometry::clip_plan::Pace {
    if input.branding.as_ref().is_some_and(|b| b.speed_ramp) {
        stillreel_camera::geometry::clip_plan::Pace::Through
    } else {
        stillreel_camera::geometry::clip_plan::Pace::Engine
    }
}
