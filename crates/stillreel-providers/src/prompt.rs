//! Prompts and model inputs: the documented templates a role's request is built from
//! (docs/PROVIDERS.md, "Prompts"), and the placeholders an operator's own templates may use.
//!
//! A prompt template (`STILLREEL_<ROLE>_PROMPT`, or the role's default) may hold
//! `{{room_type}}`, `{{staging_style}}`, `{{people}}`, `{{ethnicity}}` and `{{motion}}`; each
//! becomes a phrase, and `auto` becomes a phrase that leaves the choice to the model. A model
//! input template (`STILLREEL_<ROLE>_INPUT`) is a JSON object whose string values may hold
//! `{{image}}`, `{{prompt}}`, `{{width}}`, `{{height}}`, `{{seconds}}`, `{{fps}}` and
//! `{{frames}}`; a value that is exactly one numeric placeholder becomes a JSON number.

use serde_json::{Map, Value};
use stillreel_core::{
    CameraMotion, Ethnicity, LifestyleConfig, People, RoomType, StagingStyle, Vfx,
    VirtualStagingConfig,
};

use super::placeholder::fill;
use super::role::Role;

/// The role's prompt when `STILLREEL_<ROLE>_PROMPT` is unset. Staging and people ask the
/// model to keep the architecture and the camera, as listing rules expect of an edited photo.
pub const fn default_prompt(role: Role) -> &'static str {
    match role {
        Role::Staging => {
            "Virtually stage this empty {{room_type}}: add furniture and decor {{staging_style}}. \
             Keep the walls, windows, doors, floor, ceiling, lighting and camera position exactly \
             as they are; do not change the architecture."
        }
        Role::Lifestyle => {
            "Add {{people}}, {{ethnicity}}, naturally placed and lit, to this real-estate photo. \
             Keep the room, furniture, windows, floor and camera position exactly as they are."
        }
        Role::Fan => {
            "The ceiling fan in this room spins slowly and steadily. Nothing else moves. \
             {{motion}}"
        }
        Role::Clip => {
            "A smooth, steady real-estate video shot of this photo. {{motion}} Keep the \
             building, room and furniture exactly as they are; no people, no text."
        }
        Role::Depth => "",
    }
}

/// The model input a role sends when `STILLREEL_<ROLE>_INPUT` is unset: the input names of
/// the role's default public model (docs/PROVIDERS.md names them).
pub fn default_input(role: Role) -> Map<String, Value> {
    let value = match role {
        Role::Staging | Role::Lifestyle => serde_json::json!({
            "prompt": "{{prompt}}",
            "input_image": "{{image}}",
            "output_format": "png",
        }),
        Role::Fan | Role::Clip => serde_json::json!({
            "image": "{{image}}",
            "prompt": "{{prompt}}",
        }),
        Role::Depth => serde_json::json!({ "image": "{{image}}" }),
    };
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// What a prompt is built from: the clip's effect and its camera motion.
#[derive(Debug, Clone, Copy)]
pub struct PromptFacts<'a> {
    pub vfx: Option<&'a Vfx>,
    pub motion: CameraMotion,
}

/// The prompt for one call: `template` (the operator's, or the role's default) filled in.
pub fn build_prompt(role: Role, template: Option<&str>, facts: PromptFacts<'_>) -> String {
    let template = template.unwrap_or(default_prompt(role));
    let staging = match facts.vfx {
        Some(Vfx::VirtualStaging { config }) => config.clone(),
        _ => VirtualStagingConfig::default(),
    };
    let lifestyle = match facts.vfx {
        Some(Vfx::Lifestyle { config }) => config.clone(),
        _ => LifestyleConfig::default(),
    };
    fill(template, |name| {
        Some(match name {
            "room_type" => room_phrase(staging.room_type).to_owned(),
            "staging_style" => style_phrase(staging.staging_style).to_owned(),
            "people" => people_phrase(lifestyle.people).to_owned(),
            "ethnicity" => ethnicity_phrase(lifestyle.ethnicity).to_owned(),
            "motion" => motion_phrase(facts.motion).to_owned(),
            _ => return None,
        })
    })
    .split_whitespace()
    .collect::<Vec<_>>()
    .join(" ")
}

/// The values of an input template's placeholders.
#[derive(Debug, Clone)]
pub struct InputFacts<'a> {
    /// The photo as the protocol takes it (a `data:` URI).
    pub image: &'a str,
    pub prompt: &'a str,
    pub width: u32,
    pub height: u32,
    pub seconds: u32,
    pub fps: u32,
}

/// The model's `input` object: every string value of `template` filled in.
pub fn build_input(template: &Map<String, Value>, facts: &InputFacts<'_>) -> Map<String, Value> {
    let number = |name: &str| -> Option<u32> {
        match name {
            "width" => Some(facts.width),
            "height" => Some(facts.height),
            "seconds" => Some(facts.seconds),
            "fps" => Some(facts.fps),
            "frames" => Some(facts.seconds * facts.fps),
            _ => None,
        }
    };
    template
        .iter()
        .map(|(key, value)| {
            let filled = match value {
                Value::String(s) => {
                    // `"{{width}}"` alone is the number, as models type their inputs.
                    let whole = s
                        .strip_prefix("{{")
                        .and_then(|r| r.strip_suffix("}}"))
                        .and_then(number);
                    match whole {
                        Some(n) => Value::from(n),
                        None => Value::String(fill(s, |name| match name {
                            "image" => Some(facts.image.to_owned()),
                            "prompt" => Some(facts.prompt.to_owned()),
                            other => number(other).map(|n| n.to_string()),
                        })),
                    }
                }
                other => other.clone(),
            };
            (key.clone(), filled)
        })
        .collect()
}

const fn room_phrase(room: RoomType) -> &'static str {
    match room {
        RoomType::Auto => "room",
        RoomType::Living => "living room",
        RoomType::Dining => "dining room",
        RoomType::Bedroom => "bedroom",
        RoomType::Office => "home office",
        RoomType::Exterior => "outdoor space",
    }
}

const fn style_phrase(style: StagingStyle) -> &'static str {
    match style {
        StagingStyle::Auto => "in the style that best suits the room",
        StagingStyle::Modern => "in a modern style",
        StagingStyle::Scandinavian => "in a Scandinavian style",
        StagingStyle::Farmhouse => "in a farmhouse style",
        StagingStyle::MidCentury => "in a mid-century modern style",
        StagingStyle::Bohemian => "in a bohemian style",
    }
}

const fn people_phrase(people: People) -> &'static str {
    match people {
        People::Auto => "people who suit the home",
        People::Single => "one person",
        People::Couple => "a couple",
        People::Elderly => "an elderly couple",
    }
}

const fn ethnicity_phrase(ethnicity: Ethnicity) -> &'static str {
    match ethnicity {
        Ethnicity::Auto => "of any background",
        Ethnicity::White => "who are White",
        Ethnicity::Black => "who are Black",
        Ethnicity::Hispanic => "who are Hispanic",
        Ethnicity::EastAsian => "who are East Asian",
        Ethnicity::SouthAsian => "who are South Asian",
    }
}

const fn motion_phrase(motion: CameraMotion) -> &'static str {
    match motion {
        CameraMotion::PushIn => "The camera slowly pushes in.",
        CameraMotion::PushOut => "The camera slowly pulls back.",
        CameraMotion::OrbitLeft => "The camera slowly orbits to the left.",
        CameraMotion::OrbitRight => "The camera slowly orbits to the right.",
        CameraMotion::Auto => "The camera moves slowly and smoothly.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_prompt_names_the_room_and_style_and_auto_leaves_the_choice() {
        let vfx = Vfx::VirtualStaging {
            config: VirtualStagingConfig {
                room_type: RoomType::Bedroom,
                staging_style: StagingStyle::Scandinavian,
            },
        };
        let facts = PromptFacts {
            vfx: Some(&vfx),
            motion: CameraMotion::PushIn,
        };
        let p = build_prompt(Role::Staging, None, facts);
        assert!(p.starts_with("Virtually stage this empty bedroom: add furniture and decor in a Scandinavian style."), "{p}");
        assert!(p.contains("camera position exactly"), "{p}");
        let auto = Vfx::VirtualStaging {
            config: VirtualStagingConfig::default(),
        };
        let p = build_prompt(
            Role::Staging,
            None,
            PromptFacts {
                vfx: Some(&auto),
                ..facts
            },
        );
        assert!(
            p.contains("empty room: add furniture and decor in the style that best suits the room"),
            "{p}"
        );
    }

    #[test]
    fn lifestyle_and_motion_and_the_operator_template() {
        let vfx = Vfx::Lifestyle {
            config: LifestyleConfig {
                people: People::Couple,
                ethnicity: Ethnicity::SouthAsian,
            },
        };
        let facts = PromptFacts {
            vfx: Some(&vfx),
            motion: CameraMotion::OrbitLeft,
        };
        let p = build_prompt(Role::Lifestyle, None, facts);
        assert!(
            p.starts_with("Add a couple, who are South Asian, naturally placed"),
            "{p}"
        );
        let p = build_prompt(Role::Clip, None, facts);
        assert!(p.contains("The camera slowly orbits to the left."), "{p}");
        let own = build_prompt(
            Role::Lifestyle,
            Some("{{people}} | {{motion}} | {{ unknown }}"),
            facts,
        );
        assert_eq!(
            own,
            "a couple | The camera slowly orbits to the left. | {{ unknown }}"
        );
    }

    #[test]
    fn input_templates_fill_strings_and_numbers() {
        let template = match serde_json::json!({
            "image": "{{image}}",
            "prompt": "{{prompt}}",
            "num_frames": "{{frames}}",
            "size": "{{width}}x{{height}}",
            "guidance": 3.5,
        }) {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        let input = build_input(
            &template,
            &InputFacts {
                image: "data:image/png;base64,AAAA",
                prompt: "stage it",
                width: 1280,
                height: 720,
                seconds: 5,
                fps: 30,
            },
        );
        assert_eq!(
            Value::Object(input),
            serde_json::json!({
                "image": "data:image/png;base64,AAAA",
                "prompt": "stage it",
                "num_frames": 150,
                "size": "1280x720",
                "guidance": 3.5,
            })
        );
    }

    #[test]
    fn templates_are_checked() {
        assert!(
            super::super::placeholder::check_template("stage {{room_type}} {{ staging_style }}")
                .is_ok()
        );
        assert!(super::super::placeholder::check_template("stage {{roomtype}}").is_err());
        assert!(super::super::placeholder::check_template("stage {{room_type").is_err());
        assert!(super::super::placeholder::check_placeholders("{{image}}").is_ok());
        assert!(super::super::placeholder::check_placeholders("{{room_type}}").is_err());
        for role in Role::ALL {
            assert!(
                super::super::placeholder::check_template(default_prompt(role)).is_ok(),
                "{role}"
            );
            for value in default_input(role).values() {
                if let Value::String(s) = value {
                    assert!(
                        super::super::placeholder::check_placeholders(s).is_ok(),
                        "{role}"
                    );
                }
            }
        }
    }
}
