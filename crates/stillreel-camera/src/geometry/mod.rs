//! Where the camera looks on each frame, as pure math: the clip plan's window, the homography
//! from an output frame to the canvas, and the depth-aware (parallax) motions.

pub mod clip_plan;
pub mod homography;
pub mod parallax;
