//! Visual effects: the 13 types, the three config shapes, and the table of config fields that
//! both validation and the browser form are built from.

use serde::{Deserialize, Serialize};

use super::enums::string_enum;
use crate::limits::WORD_DROP_MAX_CHARS;

string_enum!(
    /// Every visual effect the API names.
    VfxType {
        DayToTwilight = "day-to-twilight",
        CatchTheSunshine = "catch-the-sunshine",
        VirtualStaging = "virtual-staging",
        PencilSketch = "pencil-sketch",
        SpinCeilingFan = "spin-ceiling-fan",
        StaticCeilingFan = "static-ceiling-fan",
        SwayTrees = "sway-trees",
        HouseDrop = "house-drop",
        Construction = "construction",
        StarryNight = "starry-night",
        Shadows = "shadows",
        WordDrop = "word-drop",
        Lifestyle = "lifestyle",
    }
);

impl VfxType {
    /// Effects that need a generative model: rendered only through a configured provider.
    pub const GENERATIVE: &'static [VfxType] = &[
        VfxType::VirtualStaging,
        VfxType::Lifestyle,
        VfxType::SpinCeilingFan,
    ];

    /// Whether the effect needs a generative provider.
    pub fn is_generative(self) -> bool {
        Self::GENERATIVE.contains(&self)
    }

    /// Every effect the procedural engine can render by itself.
    pub fn procedural() -> impl Iterator<Item = VfxType> {
        Self::ALL.iter().copied().filter(|t| !t.is_generative())
    }

    /// The config fields this type accepts; empty for types that take no config.
    pub const fn config_fields(self) -> &'static [ConfigField] {
        match self {
            VfxType::VirtualStaging => VIRTUAL_STAGING_FIELDS,
            VfxType::WordDrop => WORD_DROP_FIELDS,
            VfxType::Lifestyle => LIFESTYLE_FIELDS,
            _ => &[],
        }
    }

    /// Whether a `config` member is allowed (docs/API-DESIGN.md#visual-effects).
    pub const fn takes_config(self) -> bool {
        !self.config_fields().is_empty()
    }
}

string_enum!(
    /// The room `virtual-staging` furnishes.
    RoomType { Auto = "auto", Living = "living", Dining = "dining", Bedroom = "bedroom", Office = "office", Exterior = "exterior" }
);
string_enum!(
    /// The furniture style of `virtual-staging`.
    StagingStyle { Auto = "auto", Modern = "modern", Scandinavian = "scandinavian", Farmhouse = "farmhouse", MidCentury = "mid_century", Bohemian = "bohemian" }
);
string_enum!(
    /// The text color of `word-drop`.
    WordDropColor { Gold = "gold", Silver = "silver" }
);
string_enum!(
    /// Who `lifestyle` adds to the picture.
    People { Auto = "auto", Single = "single", Couple = "couple", Elderly = "elderly" }
);
string_enum!(
    /// The ethnicity of the people `lifestyle` adds.
    Ethnicity { Auto = "auto", White = "white", Black = "black", Hispanic = "hispanic", EastAsian = "east_asian", SouthAsian = "south_asian" }
);

/// What kind of value a config field takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ConfigFieldKind {
    /// One of a closed set of strings.
    Choice { values: &'static [&'static str] },
    /// Free text, limited to `max_length` characters after sanitizing.
    Text { max_length: usize },
}

/// One member of a vfx `config` object: the rules the validator applies and a form renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct ConfigField {
    pub key: &'static str,
    #[serde(flatten)]
    pub kind: ConfigFieldKind,
    pub required: bool,
    #[cfg_attr(feature = "schema", schema(required = true))]
    pub default: Option<&'static str>,
}

const VIRTUAL_STAGING_FIELDS: &[ConfigField] = &[
    choice("room_type", RoomType::NAMES, "auto"),
    choice("staging_style", StagingStyle::NAMES, "auto"),
];
const WORD_DROP_FIELDS: &[ConfigField] = &[
    ConfigField {
        key: "text",
        kind: ConfigFieldKind::Text {
            max_length: WORD_DROP_MAX_CHARS,
        },
        required: true,
        default: None,
    },
    choice("color", WordDropColor::NAMES, "gold"),
];
const LIFESTYLE_FIELDS: &[ConfigField] = &[
    choice("people", People::NAMES, "auto"),
    choice("ethnicity", Ethnicity::NAMES, "auto"),
];

const fn choice(
    key: &'static str,
    values: &'static [&'static str],
    default: &'static str,
) -> ConfigField {
    ConfigField {
        key,
        kind: ConfigFieldKind::Choice { values },
        required: false,
        default: Some(default),
    }
}

/// Config of `virtual-staging`.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VirtualStagingConfig {
    #[cfg_attr(feature = "schema", schema(required = false, default = "auto"))]
    pub room_type: RoomType,
    #[cfg_attr(feature = "schema", schema(required = false, default = "auto"))]
    pub staging_style: StagingStyle,
}

impl Default for VirtualStagingConfig {
    fn default() -> Self {
        Self {
            room_type: RoomType::Auto,
            staging_style: StagingStyle::Auto,
        }
    }
}

/// Config of `word-drop`. `text` is kept as the client sent it; the renderer draws its
/// sanitized form (`rules::word_drop::sanitize`, docs/API-DESIGN.md#word-drop-text).
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WordDropConfig {
    /// As sent; the renderer draws its sanitized form, at most 16 characters after sanitizing.
    pub text: String,
    #[cfg_attr(feature = "schema", schema(required = false, default = "gold"))]
    pub color: WordDropColor,
}

/// Config of `lifestyle`.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LifestyleConfig {
    #[cfg_attr(feature = "schema", schema(required = false, default = "auto"))]
    pub people: People,
    #[cfg_attr(feature = "schema", schema(required = false, default = "auto"))]
    pub ethnicity: Ethnicity,
}

impl Default for LifestyleConfig {
    fn default() -> Self {
        Self {
            people: People::Auto,
            ethnicity: Ethnicity::Auto,
        }
    }
}

/// One visual effect as the API carries it: `{"type": "...", "config": {...}}`, with `config`
/// only on the three types that take one.
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Vfx {
    DayToTwilight,
    CatchTheSunshine,
    VirtualStaging {
        /// Every member has a default, so a request may leave `config` out.
        #[cfg_attr(feature = "schema", schema(required = false))]
        config: VirtualStagingConfig,
    },
    PencilSketch,
    SpinCeilingFan,
    StaticCeilingFan,
    SwayTrees,
    HouseDrop,
    Construction,
    StarryNight,
    Shadows,
    WordDrop {
        config: WordDropConfig,
    },
    Lifestyle {
        /// Every member has a default, so a request may leave `config` out.
        #[cfg_attr(feature = "schema", schema(required = false))]
        config: LifestyleConfig,
    },
}

impl Vfx {
    /// The effect's type.
    pub const fn kind(&self) -> VfxType {
        match self {
            Vfx::DayToTwilight => VfxType::DayToTwilight,
            Vfx::CatchTheSunshine => VfxType::CatchTheSunshine,
            Vfx::VirtualStaging { .. } => VfxType::VirtualStaging,
            Vfx::PencilSketch => VfxType::PencilSketch,
            Vfx::SpinCeilingFan => VfxType::SpinCeilingFan,
            Vfx::StaticCeilingFan => VfxType::StaticCeilingFan,
            Vfx::SwayTrees => VfxType::SwayTrees,
            Vfx::HouseDrop => VfxType::HouseDrop,
            Vfx::Construction => VfxType::Construction,
            Vfx::StarryNight => VfxType::StarryNight,
            Vfx::Shadows => VfxType::Shadows,
            Vfx::WordDrop { .. } => VfxType::WordDrop,
            Vfx::Lifestyle { .. } => VfxType::Lifestyle,
        }
    }

    /// The effect of a type that takes no config; `None` for the three that need one.
    pub const fn plain(kind: VfxType) -> Option<Vfx> {
        Some(match kind {
            VfxType::DayToTwilight => Vfx::DayToTwilight,
            VfxType::CatchTheSunshine => Vfx::CatchTheSunshine,
            VfxType::PencilSketch => Vfx::PencilSketch,
            VfxType::SpinCeilingFan => Vfx::SpinCeilingFan,
            VfxType::StaticCeilingFan => Vfx::StaticCeilingFan,
            VfxType::SwayTrees => Vfx::SwayTrees,
            VfxType::HouseDrop => Vfx::HouseDrop,
            VfxType::Construction => Vfx::Construction,
            VfxType::StarryNight => Vfx::StarryNight,
            VfxType::Shadows => Vfx::Shadows,
            VfxType::VirtualStaging | VfxType::WordDrop | VfxType::Lifestyle => return None,
        })
    }
}
