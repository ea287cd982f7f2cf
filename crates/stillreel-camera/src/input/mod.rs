//! The still as it comes in: how its EXIF tag turns it upright ([`orient`]), how it fills the
//! frame ([`framing`]) and its canvas made in process ([`canvas`]). What a file is by its first
//! bytes is the core's (`stillreel_core::media`).

pub mod canvas;
pub mod framing;
pub mod orient;

pub use self::orient::ExifOrientation;
