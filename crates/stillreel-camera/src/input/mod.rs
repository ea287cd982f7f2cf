//! The still as it comes in: what a file is by its first bytes ([`sniff`]), how its EXIF tag
//! turns it upright ([`orient`]) and its canvas made in process ([`canvas`]).

pub mod canvas;
pub mod framing;
pub mod orient;

pub use self::orient::ExifOrientation;
