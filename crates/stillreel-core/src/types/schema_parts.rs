//! Schema parts of the wire types themselves (feature `schema`): what their `ToSchema`
//! derives refer to. The OpenAPI document and the TypeScript are built from the result in
//! the `schema` module.

use serde_json::json;
use utoipa::openapi::schema::{Object, OneOfBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

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
            .item(Ref::from_schema_name(super::BrandingRequest::name()))
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
            super::BrandingRequest::name().into_owned(),
            super::BrandingRequest::schema(),
        ));
        super::BrandingRequest::schemas(schemas);
    }
}
