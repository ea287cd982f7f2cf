//! The closed sets of string values of the API.

/// Declares a string enum with its wire spelling, `ALL`, `as_str`, `parse`, serde impls and
/// (feature `schema`) its schema, so the spelling lives in exactly one place.
macro_rules! string_enum {
    ($(#[doc = $doc:literal])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vmeta])* $variant),+ }

        impl $name {
            /// Every value, in the order the reference lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// Every wire spelling, in the order of `ALL`.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The wire spelling.
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// The value spelled `text`, exactly (no case folding: the API is case-sensitive).
            pub fn parse(text: &str) -> Option<Self> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }

            /// "a, b or c", for error messages.
            pub fn allowed_list() -> String {
                $crate::types::enums::join_or(Self::ALL.iter().map(|v| v.as_str()))
            }
        }

        impl $crate::types::WireEnum for $name {
            const NAMES: &'static [&'static str] = $name::NAMES;
            fn parse(text: &str) -> Option<Self> {
                $name::parse(text)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                Self::parse(&text).ok_or_else(|| {
                    serde::de::Error::custom(format!("expected {}", Self::allowed_list()))
                })
            }
        }

        #[cfg(feature = "schema")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                $crate::types::schema_parts::string_enum(&[$($doc),*], Self::NAMES)
            }
        }

        #[cfg(feature = "schema")]
        impl utoipa::ToSchema for $name {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed(stringify!($name))
            }
        }
    };
}
pub(crate) use string_enum;

/// A closed set of strings on the wire; lets the validator treat every enum alike.
pub trait WireEnum: Sized + Copy {
    /// Every wire spelling.
    const NAMES: &'static [&'static str];
    /// The value spelled `text`, exactly.
    fn parse(text: &str) -> Option<Self>;
}

pub(crate) fn join_or<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let items: Vec<&str> = items.collect();
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

string_enum!(
    /// Frame orientation of a video or clip.
    Orientation { Landscape = "landscape", Portrait = "portrait" }
);

string_enum!(
    /// Output resolution: 720p is 1280×720 / 720×1280, 1080p is 1920×1080 / 1080×1920.
    Resolution { P720 = "720p", P1080 = "1080p" }
);

impl Resolution {
    /// Frame width and height in pixels for an orientation (docs/API-DESIGN.md#rendering).
    pub const fn dimensions(self, orientation: Orientation) -> (u32, u32) {
        let (long, short) = match self {
            Resolution::P720 => (1280, 720),
            Resolution::P1080 => (1920, 1080),
        };
        match orientation {
            Orientation::Landscape => (long, short),
            Orientation::Portrait => (short, long),
        }
    }
}

string_enum!(
    /// The "AI engine" generation: v24 moves linearly; v25 adds orbits and eases its moves;
    /// `generative` has a model (the `clip` provider role, docs/PROVIDERS.md) make each clip
    /// from the photo and its camera motion, and exists only where that role is configured.
    Engine { V24 = "v24", V25 = "v25", Generative = "generative" }
);

impl Engine {
    /// The engines every deployment renders (the procedural cameras).
    pub const BUILT_IN: &'static [Engine] = &[Engine::V24, Engine::V25];

    /// Whether a model makes the clip (its camera motion becomes part of the prompt).
    pub const fn is_generative(self) -> bool {
        matches!(self, Engine::Generative)
    }
}

string_enum!(
    /// The camera move of one clip; the orbits need engine v25 (or `generative`).
    CameraMotion {
        PushIn = "push-in",
        PushOut = "push-out",
        OrbitLeft = "orbit-left",
        OrbitRight = "orbit-right",
        Auto = "auto",
    }
);

impl CameraMotion {
    /// Whether `engine` can render this motion (orbits need v25, or the generative engine whose
    /// model is asked for them; docs/API-DESIGN.md#defaults).
    pub const fn supported_by(self, engine: Engine) -> bool {
        match self {
            CameraMotion::OrbitLeft | CameraMotion::OrbitRight => {
                matches!(engine, Engine::V25 | Engine::Generative)
            }
            _ => true,
        }
    }
}

string_enum!(
    /// How a photo fills its clip's frame: `cover` (scaled to cover the frame, the overflow
    /// cut evenly from both sides), `contain-blur` (the whole photo, over a blurred and dimmed
    /// fill of itself), `smart` (covers the frame like `cover`, the cut placed so the photo's
    /// most detailed region stays in), or `auto` (the default: `contain-blur` when covering
    /// would cut away more than 40 % of the photo's width or height, else `smart`).
    Fit {
        Auto = "auto",
        Cover = "cover",
        ContainBlur = "contain-blur",
        Smart = "smart",
    }
);

#[allow(
    clippy::derivable_impls,
    reason = "string_enum! declares the enum and derives no Default for every enum"
)]
impl Default for Fit {
    fn default() -> Self {
        Fit::Auto
    }
}

string_enum!(
    /// The look of a clip's caption: `label` (the default; a room or feature name, on a plate at
    /// the lower left) or `facts` (a listing-facts line such as "3 bd · 2 ba", smaller, centred
    /// at the bottom).
    CaptionStyle { Label = "label", Facts = "facts" }
);

#[allow(
    clippy::derivable_impls,
    reason = "string_enum! declares the enum and derives no Default for every enum"
)]
impl Default for CaptionStyle {
    fn default() -> Self {
        CaptionStyle::Label
    }
}

string_enum!(
    /// How consecutive clips meet: `cut` (the default), `crossfade` (the first dissolves into
    /// the next over 0.5 s) or `fade-black` (through black over 0.5 s). The blended
    /// transitions overlap the clips, so each join shortens the video by 0.5 s.
    Transition {
        Cut = "cut",
        Crossfade = "crossfade",
        FadeBlack = "fade-black",
    }
);

#[expect(
    clippy::derivable_impls,
    reason = "string_enum! declares the enum with a fixed set of derives"
)]
impl Default for Transition {
    fn default() -> Self {
        Transition::Cut
    }
}

impl Transition {
    /// Whether clips meet in a hard cut (the default, left out of stored requests).
    pub fn is_cut(&self) -> bool {
        matches!(self, Transition::Cut)
    }

    /// Frames two clips overlap at a join (0 for a cut): 0.5 s at 30 fps.
    pub const fn overlap_frames(self) -> u32 {
        match self {
            Transition::Cut => 0,
            Transition::Crossfade | Transition::FadeBlack => 15,
        }
    }
}

string_enum!(
    /// Lifecycle of a video or a branded render: `queued` → `in_progress` → `complete` | `error`.
    Status {
        Queued = "queued",
        InProgress = "in_progress",
        Complete = "complete",
        Error = "error",
    }
);

impl Status {
    /// Whether moving from `self` to `next` is allowed; status never goes back
    /// (docs/API-DESIGN.md#status-lifecycle).
    pub const fn can_become(self, next: Status) -> bool {
        matches!(
            (self, next),
            (Status::Queued, Status::InProgress)
                | (Status::Queued, Status::Error)
                | (Status::InProgress, Status::Complete)
                | (Status::InProgress, Status::Error)
        )
    }

    /// Whether the status is final.
    pub const fn is_terminal(self) -> bool {
        matches!(self, Status::Complete | Status::Error)
    }
}

string_enum!(
    /// Which end of the video a template belongs to.
    TemplateSlotKind { Intro = "intro", Outro = "outro" }
);

string_enum!(
    /// The kind of value a template field takes: text `{value}` or image `{url}`.
    TemplateFieldType { Text = "text", Image = "image" }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimensions_follow_orientation() {
        assert_eq!(
            Resolution::P720.dimensions(Orientation::Landscape),
            (1280, 720)
        );
        assert_eq!(
            Resolution::P720.dimensions(Orientation::Portrait),
            (720, 1280)
        );
        assert_eq!(
            Resolution::P1080.dimensions(Orientation::Landscape),
            (1920, 1080)
        );
        assert_eq!(
            Resolution::P1080.dimensions(Orientation::Portrait),
            (1080, 1920)
        );
    }

    #[test]
    fn status_never_goes_back() {
        use Status::*;
        assert!(Queued.can_become(InProgress));
        assert!(InProgress.can_become(Complete));
        assert!(InProgress.can_become(Error));
        assert!(Queued.can_become(Error));
        for from in Status::ALL {
            assert!(!from.can_become(Queued), "{from} -> queued");
            assert!(!from.can_become(*from), "{from} -> itself");
        }
        assert!(!Complete.can_become(Error));
        assert!(!Error.can_become(Complete));
        assert!(
            !Queued.can_become(Complete),
            "a video passes through in_progress"
        );
    }

    #[test]
    fn spellings_parse_back_and_are_case_sensitive() {
        for m in CameraMotion::ALL {
            assert_eq!(CameraMotion::parse(m.as_str()), Some(*m));
        }
        assert_eq!(Engine::parse("V25"), None);
        assert_eq!(Resolution::parse("720P"), None);
        assert_eq!(join_or(["a", "b", "c"].into_iter()), "a, b or c");
        assert_eq!(join_or(["a"].into_iter()), "a");
    }

    #[test]
    fn serde_uses_wire_spellings() {
        assert_eq!(
            serde_json::to_string(&Status::InProgress).ok(),
            Some("\"in_progress\"".into())
        );
        assert_eq!(
            serde_json::from_str::<Resolution>("\"1080p\"").ok(),
            Some(Resolution::P1080)
        );
        assert!(serde_json::from_str::<Resolution>("\"4k\"").is_err());
    }
}
