//! Media in and out of a job: [`fetch`] (safe downloads; HEIC turned to JPEG by [`heif`]),
//! [`probe`] (a rendered clip checked against its plan), [`keyframes`] (where a stored video's
//! keyframes are) and [`thumbnail`] (a clip's JPEG made in process).

pub mod fetch;
pub mod heif;
pub mod keyframes;
pub mod probe;
pub mod thumbnail;
