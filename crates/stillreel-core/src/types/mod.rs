//! serde types for every resource of the API, spelled exactly as the reference spells them.

pub(crate) mod enums;
mod request;
mod response;
#[cfg(feature = "schema")]
pub(crate) mod schema_parts;
mod template;
mod vfx;

pub use enums::*;
pub use request::*;
pub use response::*;
pub use template::*;
pub use vfx::*;
