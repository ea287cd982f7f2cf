//! Combine's cross-clip rule: every referenced clip matches the request's orientation and
//! resolution, and all share one engine. The server looks the clips up and passes their facts;
//! the rule itself is pure.

use crate::error::{ErrorCode, FieldError};
use crate::types::{Engine, Orientation, Resolution};

/// What the rule needs to know about one referenced clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClipFacts {
    pub orientation: Orientation,
    pub resolution: Resolution,
    pub engine: Engine,
}

/// The engine of the combined video, or one `mismatch` per offending element of
/// `video_clip_uuids`. The first clip's engine is the reference: "v24 clips give a v24 video".
pub fn check_clips(
    orientation: Orientation,
    resolution: Resolution,
    clips: &[ClipFacts],
) -> Result<Engine, Vec<FieldError>> {
    let Some(engine) = clips.first().map(|c| c.engine) else {
        return Err(vec![FieldError::new("video_clip_uuids", ErrorCode::Empty, "video_clip_uuids must not be empty")]);
    };
    let errors: Vec<FieldError> = clips
        .iter()
        .enumerate()
        .filter_map(|(i, clip)| {
            let mut why = Vec::new();
            if clip.orientation != orientation {
                why.push(format!("is {} but the request asks for {orientation}", clip.orientation));
            }
            if clip.resolution != resolution {
                why.push(format!("is {} but the request asks for {resolution}", clip.resolution));
            }
            if clip.engine != engine {
                why.push(format!("was made by {} but the first clip by {engine}; clips cannot mix engines", clip.engine));
            }
            (!why.is_empty()).then(|| {
                FieldError::new(
                    format!("video_clip_uuids[{i}]"),
                    ErrorCode::Mismatch,
                    format!("this clip {}", why.join(", and ")),
                )
            })
        })
        .collect();
    if errors.is_empty() { Ok(engine) } else { Err(errors) }
}
