//! Every field rule of the stillreel API, in one place.
//!
//! The server's 422 bodies, the browser form's live errors (through the wasm binding) and the
//! renderer's inputs all come from this crate, so a body the form accepts is a body the server
//! accepts and the same mistake gets the same field path and code everywhere.
//!
//! The crate does no I/O. What only a deployment knows (its template catalog, an account's clip
//! limit, which vfx types it can render, its default engine) comes in through [`Options`].

pub mod builder;
pub mod catalog;
pub mod error;
pub mod font;
mod json;
pub mod limits;
pub mod media;
pub mod options;
mod path;
mod reader;
pub mod rules;
#[cfg(feature = "schema")]
pub mod schema;
pub mod template_file;
pub mod types;
pub mod validate;

pub use error::{ErrorCode, FieldError, Rejection};
/// The JSON reader's view of a text, for the differential fuzz target only.
#[doc(hidden)]
pub use json::view as json_reader_view;
pub use media::{MediaClass, MediaFormat};
pub use types::*;
pub use validate::{
    ClipFacts, Options, OptionsData, PROCEDURAL_VFX, TemplatesData, check_combine_clips,
    validate_combine_video_clips, validate_create_brand_kit, validate_create_project,
    validate_create_video, validate_update_brand_kit,
};
