//! Intro and outro templates: what a client sees, plus the layout the renderer draws.

use serde::{Deserialize, Serialize};

use super::{TemplateFieldType, TemplateSlotKind};

/// One field of a template.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateField {
    pub key: String,
    #[serde(rename = "type")]
    pub kind: TemplateFieldType,
    pub required: bool,
    /// Longest text in characters; text fields only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<usize>,
    /// Layout of this field on the frame; not part of the API's template listing.
    #[serde(default, skip_serializing)]
    #[cfg_attr(feature = "schema", schema(ignore))]
    pub layout: Option<FieldLayout>,
}

/// Where and how the renderer draws one field. Boxes are fractions of the frame, so a template
/// fits both orientations and resolutions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldLayout {
    /// Box as fractions of width and height: left, top, width, height.
    pub portrait: [f32; 4],
    pub landscape: [f32; 4],
    /// Text size as a fraction of the frame's shorter side; text shrinks to fit its box.
    #[serde(default)]
    pub font_size: f32,
    /// `#rrggbb`.
    #[serde(default)]
    pub color: String,
    /// `left`, `center` or `right`.
    #[serde(default)]
    pub align: String,
    /// Which of the renderer's two fonts draws the text: `body` (the default) or `display`
    /// (titles and names; docs/EFFECTS.md "Fonts").
    #[serde(default)]
    pub font: TextFont,
}

impl Eq for FieldLayout {}

/// The font role of a text field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextFont {
    /// The body font, for details (phone, address lines, e-mail).
    #[default]
    Body,
    /// The display font, for titles and names.
    Display,
}

/// Look of the whole card or overlay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateStyle {
    /// Background of the card (outro) or of the overlay band (intro), `#rrggbb`.
    pub background: String,
    /// Opacity of that background, 0–1.
    pub background_opacity: f32,
    /// Accent color for rules and highlights, `#rrggbb`.
    pub accent: String,
}

impl Eq for TemplateStyle {}

/// A template as the catalog holds it.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub id: String,
    pub slot: TemplateSlotKind,
    pub name: String,
    pub description: String,
    pub fields: Vec<TemplateField>,
    /// Renderer data; not part of the API's template listing.
    #[serde(default, skip_serializing)]
    #[cfg_attr(feature = "schema", schema(ignore))]
    pub style: Option<TemplateStyle>,
}

impl Template {
    /// The field with this key.
    pub fn field(&self, key: &str) -> Option<&TemplateField> {
        self.fields.iter().find(|f| f.key == key)
    }
}

/// `GET /get_templates`.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TemplateList {
    pub templates: Vec<Template>,
}
