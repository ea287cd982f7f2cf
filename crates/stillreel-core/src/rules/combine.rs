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
        return Err(vec![FieldError::new(
            "video_clip_uuids",
            ErrorCode::Empty,
            "video_clip_uuids must not be empty",
        )]);
    };
    let errors: Vec<FieldError> = clips
        .iter()
        .enumerate()
        .filter_map(|(i, clip)| {
            let mut why = Vec::new();
            if clip.orientation != orientation {
                why.push(format!(
                    "is {} but the request asks for {orientation}",
                    clip.orientation
                ));
            }
            if clip.resolution != resolution {
                why.push(format!(
                    "is {} but the request asks for {resolution}",
                    clip.resolution
                ));
            }
            if clip.engine != engine {
                why.push(format!(
                    "was made by {} but the first clip by {engine}; clips cannot mix engines",
                    clip.engine
                ));
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
    if errors.is_empty() {
        Ok(engine)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L720_V25: ClipFacts = ClipFacts {
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        engine: Engine::V25,
    };

    fn codes(result: Result<Engine, Vec<FieldError>>) -> Vec<String> {
        result
            .err()
            .unwrap_or_default()
            .into_iter()
            .map(|e| format!("{}:{}", e.field, e.code))
            .collect()
    }

    #[test]
    fn matching_clips_give_their_engine() {
        let v24 = ClipFacts {
            engine: Engine::V24,
            ..L720_V25
        };
        assert_eq!(
            check_clips(Orientation::Landscape, Resolution::P720, &[v24, v24]),
            Ok(Engine::V24)
        );
        assert_eq!(
            check_clips(Orientation::Landscape, Resolution::P720, &[L720_V25]),
            Ok(Engine::V25)
        );
    }

    #[test]
    fn generative_clips_combine_only_with_generative_clips() {
        let generated = ClipFacts {
            engine: Engine::Generative,
            ..L720_V25
        };
        assert_eq!(
            check_clips(
                Orientation::Landscape,
                Resolution::P720,
                &[generated, generated]
            ),
            Ok(Engine::Generative)
        );
        assert_eq!(
            codes(check_clips(
                Orientation::Landscape,
                Resolution::P720,
                &[generated, L720_V25]
            )),
            ["video_clip_uuids[1]:mismatch"]
        );
    }

    #[test]
    fn each_offending_element_is_named() {
        let portrait = ClipFacts {
            orientation: Orientation::Portrait,
            ..L720_V25
        };
        let hd = ClipFacts {
            resolution: Resolution::P1080,
            ..L720_V25
        };
        let old = ClipFacts {
            engine: Engine::V24,
            ..L720_V25
        };
        assert_eq!(
            codes(check_clips(
                Orientation::Landscape,
                Resolution::P720,
                &[L720_V25, portrait, hd, old]
            )),
            [
                "video_clip_uuids[1]:mismatch",
                "video_clip_uuids[2]:mismatch",
                "video_clip_uuids[3]:mismatch"
            ]
        );
    }

    #[test]
    fn request_orientation_must_match_every_clip() {
        assert_eq!(
            codes(check_clips(
                Orientation::Portrait,
                Resolution::P720,
                &[L720_V25, L720_V25]
            )),
            [
                "video_clip_uuids[0]:mismatch",
                "video_clip_uuids[1]:mismatch"
            ]
        );
    }

    #[test]
    fn one_message_lists_every_reason() {
        let all_wrong = ClipFacts {
            orientation: Orientation::Portrait,
            resolution: Resolution::P1080,
            engine: Engine::V24,
        };
        let errors = check_clips(
            Orientation::Landscape,
            Resolution::P720,
            &[L720_V25, all_wrong],
        )
        .err()
        .unwrap_or_default();
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].message.contains("portrait")
                && errors[0].message.contains("1080p")
                && errors[0].message.contains("v24"),
            "{}",
            errors[0].message
        );
    }

    #[test]
    fn no_clips_is_empty() {
        assert_eq!(
            codes(check_clips(Orientation::Landscape, Resolution::P720, &[])),
            ["video_clip_uuids:empty"]
        );
    }
}
