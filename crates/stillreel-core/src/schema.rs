//! The wire types' schemas (feature `schema`): the one description of the API's shapes.
//!
//! The types derive utoipa's `ToSchema` next to their serde attributes, so a field's name,
//! doc comment, limits and optionality are written once, on the type the code uses. The
//! server puts these schemas into its OpenAPI document; [`typescript`] turns the same schemas
//! into the npm package's declarations.
//!
//! One convention joins the two readings. A schema describes a body as it may be sent (a
//! member with a default may be left out: not `required`), and the TypeScript describes a
//! value as the Rust side produces it. A member that is not `required` is optional in
//! TypeScript only when its schema also allows `null` (an `Option` the serializer skips);
//! otherwise the Rust type always carries it (a default is filled in), so it is required
//! there. A `oneOf` branch marked `writeOnly` is a form only accepted on input (combine's
//! boolean `branding`) and is left out of the TypeScript.
//!
//! The schema parts the types need themselves are in `types` (an enum's in
//! `types::schema_parts`, combine's two-form `branding` beside its request), so this module
//! names the types and the types never name it.

use serde_json::Value;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

mod typescript;

pub use crate::types::CombineBranding;
pub use typescript::{Declaration, typescript};

/// A schema as JSON, the form [`typescript`] reads.
pub fn to_json(schema: &RefOr<Schema>) -> Value {
    serde_json::to_value(schema).unwrap_or(Value::Null)
}
