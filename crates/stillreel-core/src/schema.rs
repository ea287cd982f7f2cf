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

use serde_json::{Value, json};
use utoipa::openapi::schema::{Object, OneOfBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

mod typescript;

pub use typescript::{Declaration, typescript};

/// The schema of a [`string_enum!`](crate::types::enums) type: its doc lines as the
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

/// `POST /combine_video_clips`'s `branding` as sent: the object, or a boolean. Validation
/// turns `true` into `{"speed_ramp": true}` and `false` into none, so the boolean branch is
/// `writeOnly`: a normalized body only ever has the object.
#[derive(Debug)]
pub struct CombineBranding;

impl PartialSchema for CombineBranding {
    fn schema() -> RefOr<Schema> {
        let mut flag = Object::with_type(SchemaType::Type(Type::Boolean));
        flag.write_only = Some(true);
        flag.description =
            Some("`true` is `{\"speed_ramp\": true}`, `false` is no branding.".into());
        OneOfBuilder::new()
            .item(Ref::from_schema_name(crate::BrandingRequest::name()))
            .item(flag)
            .description(Some(
                "Combine's branding: the object, or `true` (= `{\"speed_ramp\": true}`) / `false` (none).",
            ))
            .into()
    }
}

impl ToSchema for CombineBranding {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((
            crate::BrandingRequest::name().into_owned(),
            crate::BrandingRequest::schema(),
        ));
        crate::BrandingRequest::schemas(schemas);
    }
}

/// A schema as JSON, the form [`typescript`] reads.
pub fn to_json(schema: &RefOr<Schema>) -> Value {
    serde_json::to_value(schema).unwrap_or(Value::Null)
}
