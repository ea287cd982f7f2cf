//! Schema parts of the wire types themselves (feature `schema`): what their `ToSchema`
//! derives refer to. The OpenAPI document and the TypeScript are built from the result in
//! the `schema` module. A part that names a type sits beside it (`request::CombineBranding`),
//! so this module names no type and every type may use it.

use serde_json::json;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{Object, Schema, SchemaType, Type};

/// The schema of a `string_enum!` type (`types/enums.rs`): its doc lines as the
/// description, its wire spellings as the enum.
pub fn string_enum(doc: &[&str], names: &[&str]) -> RefOr<Schema> {
    let description = doc
        .iter()
        .map(|line| line.trim())
        .collect::<Vec<_>>()
        .join("\n");
    let mut object = Object::with_type(SchemaType::Type(Type::String));
    object.enum_values = Some(names.iter().map(|n| json!(n)).collect());
    if !description.is_empty() {
        object.description = Some(description);
    }
    RefOr::T(Schema::Object(object))
}
