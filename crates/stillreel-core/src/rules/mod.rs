//! One rule per module: what it checks and why, as pure functions over values.

pub mod brand_kit;
pub mod branding;
pub mod caption;
pub mod combine;
pub mod image;
pub mod nfc;
pub mod project;
pub mod template_text;
pub mod title;
pub mod url;
pub mod uuid;
pub mod vfx;
pub mod word_drop;
