//! Reading the roles' settings: [`ProviderRoles::from_lookup`] takes a lookup function (the
//! server passes its environment reader) and answers the first unusable setting by its
//! variable name, so a bad value stops start-up naming the variable.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Map, Value};

use super::placeholder;
use super::role::{
    LEGACY_TIMEOUT, LEGACY_TOKEN, LEGACY_URL, Model, OutputKind, Protocol, ProviderRoles, Role,
    RoleConfig, Setting,
};

/// A setting that cannot be used: the variable, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{var}: {message}")]
pub struct RoleSetupError {
    pub var: &'static str,
    pub message: String,
}

impl ProviderRoles {
    /// Reads every role through `lookup` (empty values count as unset).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, RoleSetupError> {
        let get = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let mut roles = BTreeMap::new();
        for role in Role::ALL {
            if let Some(config) = read_role(role, &get)? {
                roles.insert(role, config);
            }
        }
        if let Some(url) = get(LEGACY_URL) {
            let legacy = crate::ProviderConfig::from_values(
                Some(&url),
                get(LEGACY_TOKEN).as_deref(),
                get(LEGACY_TIMEOUT).as_deref(),
            )
            .map_err(|err| RoleSetupError {
                var: match err {
                    crate::ProviderSetupError::BadTimeout(_) => LEGACY_TIMEOUT,
                    _ => LEGACY_URL,
                },
                message: err.to_string(),
            })?;
            if let Some(legacy) = legacy {
                for role in [Role::Staging, Role::Lifestyle, Role::Fan] {
                    roles
                        .entry(role)
                        .or_insert_with(|| RoleConfig::from_legacy(role, &legacy));
                }
            }
        }
        Ok(ProviderRoles { roles })
    }
}

/// One role's settings; `None` when `_PROVIDER` is unset (and nothing else of it is set).
fn read_role(
    role: Role,
    get: &impl Fn(&str) -> Option<String>,
) -> Result<Option<RoleConfig>, RoleSetupError> {
    let fail = |setting: Setting, message: String| RoleSetupError {
        var: role.var(setting),
        message,
    };
    let Some(kind) = get(role.var(Setting::Provider)) else {
        // Settings of a role that is off are most likely a forgotten `_PROVIDER`.
        if let Some(set) = role.vars()[1..].iter().find(|v| get(v).is_some()) {
            return Err(fail(
                Setting::Provider,
                format!(
                    "is unset, but {set} is set: name the provider (replicate, cog, openai or stillreel)"
                ),
            ));
        }
        return Ok(None);
    };
    let protocol = Protocol::parse(&kind).ok_or_else(|| {
        fail(
            Setting::Provider,
            format!("{kind:?} is not replicate, cog, openai or stillreel"),
        )
    })?;
    if protocol == Protocol::OpenAi && role.output() != OutputKind::Still {
        return Err(fail(
            Setting::Provider,
            format!(
                "openai image edits answer a picture; the {role} role needs {}",
                match role.output() {
                    OutputKind::Clip => "a clip",
                    _ => "a depth map",
                }
            ),
        ));
    }
    // The contract names an effect per call; it has no call for a depth map or a clip of the
    // camera's motion, so those roles need a model host's own protocol.
    if protocol == Protocol::Stillreel && role.vfx().is_none() {
        return Err(fail(
            Setting::Provider,
            format!("the stillreel contract makes effects; the {role} role needs replicate or cog"),
        ));
    }
    let url = match get(role.var(Setting::Url)) {
        Some(url) => check_url(&url).map_err(|m| fail(Setting::Url, m))?,
        None => protocol.default_url().map(str::to_owned).ok_or_else(|| {
            fail(
                Setting::Url,
                format!("is required for {}", protocol.as_str()),
            )
        })?,
    };
    let token = get(role.var(Setting::Token));
    if matches!(protocol, Protocol::Replicate | Protocol::OpenAi) && token.is_none() {
        return Err(fail(
            Setting::Token,
            format!("is required for {} (the API key)", protocol.as_str()),
        ));
    }
    let model = match get(role.var(Setting::Model)) {
        Some(text) => Some(parse_model(protocol, &text).map_err(|m| fail(Setting::Model, m))?),
        None => match protocol {
            Protocol::Replicate => Some(default_replicate_model(role)),
            Protocol::OpenAi => Some(Model::Named("gpt-image-1".to_owned())),
            Protocol::Cog | Protocol::Stillreel => None,
        },
    };
    let input = match get(role.var(Setting::Input)) {
        None => None,
        Some(_) if !matches!(protocol, Protocol::Replicate | Protocol::Cog) => {
            return Err(fail(
                Setting::Input,
                format!(
                    "is used by replicate and cog only, not {}",
                    protocol.as_str()
                ),
            ));
        }
        Some(text) => Some(parse_input(&text).map_err(|m| fail(Setting::Input, m))?),
    };
    let prompt = get(role.var(Setting::Prompt));
    if let Some(p) = &prompt {
        placeholder::check_template(p).map_err(|m| fail(Setting::Prompt, m))?;
    }
    let timeout = match get(role.var(Setting::TimeoutSecs)) {
        None => role.default_timeout_secs(),
        Some(t) => t
            .parse::<u64>()
            .ok()
            .filter(|s| (1..=3600).contains(s))
            .ok_or_else(|| {
                fail(
                    Setting::TimeoutSecs,
                    format!("{t:?} is not a whole number of seconds from 1 to 3600"),
                )
            })?,
    };
    Ok(Some(RoleConfig {
        role,
        protocol,
        url,
        token,
        model,
        input,
        prompt,
        timeout: Duration::from_secs(timeout),
    }))
}

/// An `http`/`https` URL with a host, without its trailing slash.
fn check_url(text: &str) -> Result<String, String> {
    let parsed = reqwest::Url::parse(text).map_err(|e| format!("{text:?} is not a URL ({e})"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return Err(format!("{text:?} must be an http or https URL with a host"));
    }
    Ok(text.trim_end_matches('/').to_owned())
}

/// `owner/name` or `owner/name:version` for Replicate; any name without spaces otherwise.
fn parse_model(protocol: Protocol, text: &str) -> Result<Model, String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if protocol != Protocol::Replicate {
        if text.len() > 200 || text.chars().any(char::is_whitespace) {
            return Err(format!("{text:?} is not a model name"));
        }
        return Ok(Model::Named(text.to_owned()));
    }
    let (path, version) = match text.split_once(':') {
        Some((p, v)) => (p, Some(v)),
        None => (text, None),
    };
    let bad = || format!("{text:?} is not owner/name or owner/name:version");
    let (owner, name) = path.split_once('/').ok_or_else(bad)?;
    if [owner, name]
        .iter()
        .any(|part| part.is_empty() || !part.chars().all(plain))
    {
        return Err(bad());
    }
    if let Some(v) = version
        && (v.is_empty() || !v.chars().all(|c| c.is_ascii_alphanumeric()))
    {
        return Err(bad());
    }
    Ok(Model::Replicate {
        owner: owner.to_owned(),
        name: name.to_owned(),
        version: version.map(str::to_owned),
    })
}

/// A JSON object whose values are the model's inputs (strings may hold placeholders).
fn parse_input(text: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => {
            for value in map.values() {
                if let Value::String(s) = value {
                    placeholder::check_placeholders(s)?;
                }
            }
            Ok(map)
        }
        Ok(_) => Err("must be a JSON object (the model's input)".to_owned()),
        Err(e) => Err(format!("is not JSON ({e})")),
    }
}

/// The public Replicate model a role calls when `_MODEL` is unset (docs/PROVIDERS.md).
pub fn default_replicate_model(role: Role) -> Model {
    let (owner, name) = match role {
        Role::Staging | Role::Lifestyle => ("black-forest-labs", "flux-kontext-pro"),
        Role::Fan | Role::Clip => ("wan-video", "wan-2.2-i2v-fast"),
        Role::Depth => ("chenxwh", "depth-anything-v2"),
    };
    Model::Replicate {
        owner: owner.to_owned(),
        name: name.to_owned(),
        version: None,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use stillreel_core::VfxType;

    use super::*;

    fn roles(vars: &[(&str, &str)]) -> Result<ProviderRoles, RoleSetupError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        ProviderRoles::from_lookup(|name| map.get(name).cloned())
    }

    fn var_of(vars: &[(&str, &str)]) -> &'static str {
        roles(vars).expect_err("refused").var
    }

    #[test]
    fn no_settings_no_roles_and_only_procedural_effects() {
        let none = roles(&[]).expect("ok");
        assert!(none.is_empty());
        let vfx = none.available_vfx();
        assert_eq!(vfx.len(), 10);
        assert!(vfx.iter().all(|t| !t.is_generative()));
    }

    #[test]
    fn variable_names_follow_the_role() {
        assert_eq!(
            Role::Staging.var(Setting::Provider),
            "STILLREEL_STAGING_PROVIDER"
        );
        assert_eq!(
            Role::Depth.var(Setting::TimeoutSecs),
            "STILLREEL_DEPTH_TIMEOUT_SECS"
        );
        assert_eq!(Role::Clip.var(Setting::Input), "STILLREEL_CLIP_INPUT");
        assert_eq!(Role::for_vfx(VfxType::SpinCeilingFan), Some(Role::Fan));
        assert_eq!(Role::for_vfx(VfxType::Shadows), None);
    }

    #[test]
    fn the_clip_role_adds_the_generative_engine() {
        use stillreel_core::Engine;
        let none = ProviderRoles::none();
        assert_eq!(none.available_engines(), Engine::BUILT_IN);
        let r = roles(&[
            ("STILLREEL_CLIP_PROVIDER", "replicate"),
            ("STILLREEL_CLIP_TOKEN", "r8_x"),
        ])
        .expect("valid");
        assert_eq!(
            r.available_engines(),
            vec![Engine::V24, Engine::V25, Engine::Generative]
        );
        // The clip role adds no vfx type.
        assert_eq!(r.available_vfx(), none.available_vfx());
    }

    #[test]
    fn replicate_with_two_variables_uses_defaults() {
        let r = roles(&[
            ("STILLREEL_STAGING_PROVIDER", "replicate"),
            ("STILLREEL_STAGING_TOKEN", "r8_secret"),
        ])
        .expect("ok");
        let staging = r.get(Role::Staging).expect("staging");
        assert_eq!(staging.protocol, Protocol::Replicate);
        assert_eq!(staging.url, "https://api.replicate.com");
        assert_eq!(staging.model_label(), "black-forest-labs/flux-kontext-pro");
        assert_eq!(staging.timeout, Duration::from_secs(120));
        assert!(!format!("{staging:?}").contains("r8_secret"));
        let vfx = r.available_vfx();
        assert_eq!(vfx.len(), 11);
        assert!(vfx.contains(&VfxType::VirtualStaging));
        assert!(!vfx.contains(&VfxType::Lifestyle));
    }

    #[test]
    fn every_setting_is_read() {
        let r = roles(&[
            ("STILLREEL_FAN_PROVIDER", "cog"),
            ("STILLREEL_FAN_URL", "http://gpu.internal:5000/"),
            ("STILLREEL_FAN_MODEL", "wan-2.2"),
            (
                "STILLREEL_FAN_INPUT",
                r#"{"image": "{{image}}", "prompt": "{{prompt}}", "num_frames": 81}"#,
            ),
            ("STILLREEL_FAN_PROMPT", "the fan turns; {{motion}}"),
            ("STILLREEL_FAN_TIMEOUT_SECS", "900"),
            ("STILLREEL_DEPTH_PROVIDER", "replicate"),
            ("STILLREEL_DEPTH_TOKEN", "t"),
            ("STILLREEL_DEPTH_MODEL", "someone/depth:abc123"),
        ])
        .expect("ok");
        let fan = r.get(Role::Fan).expect("fan");
        assert_eq!(fan.url, "http://gpu.internal:5000");
        assert_eq!(fan.model, Some(Model::Named("wan-2.2".into())));
        assert_eq!(fan.input.as_ref().map(Map::len), Some(3));
        assert_eq!(fan.timeout, Duration::from_secs(900));
        assert_eq!(fan.token, None);
        let depth = r.get(Role::Depth).expect("depth");
        assert_eq!(
            depth.model,
            Some(Model::Replicate {
                owner: "someone".into(),
                name: "depth".into(),
                version: Some("abc123".into())
            })
        );
        // Depth serves the camera, not a vfx type.
        assert_eq!(r.available_vfx().len(), 11);
    }

    #[test]
    fn a_bad_setting_names_its_variable() {
        assert_eq!(
            var_of(&[("STILLREEL_LIFESTYLE_PROVIDER", "midjourney")]),
            "STILLREEL_LIFESTYLE_PROVIDER"
        );
        assert_eq!(
            var_of(&[("STILLREEL_STAGING_URL", "http://x/")]),
            "STILLREEL_STAGING_PROVIDER"
        );
        assert_eq!(
            var_of(&[
                ("STILLREEL_FAN_PROVIDER", "openai"),
                ("STILLREEL_FAN_TOKEN", "k")
            ]),
            "STILLREEL_FAN_PROVIDER"
        );
        assert_eq!(
            var_of(&[("STILLREEL_DEPTH_PROVIDER", "cog")]),
            "STILLREEL_DEPTH_URL"
        );
        // The stillreel contract makes effects only: no depth map, no camera clip.
        for role in ["DEPTH", "CLIP"] {
            let provider = format!("STILLREEL_{role}_PROVIDER");
            let url = format!("STILLREEL_{role}_URL");
            assert_eq!(
                var_of(&[(&provider, "stillreel"), (&url, "http://m.internal/")]),
                provider
            );
        }
        assert_eq!(
            var_of(&[
                ("STILLREEL_CLIP_PROVIDER", "cog"),
                ("STILLREEL_CLIP_URL", "ftp://x/")
            ]),
            "STILLREEL_CLIP_URL"
        );
        assert_eq!(
            var_of(&[("STILLREEL_STAGING_PROVIDER", "replicate")]),
            "STILLREEL_STAGING_TOKEN"
        );
        for model in ["flux", "a/b/c", "a/b:", "a/b:v-1", "/b"] {
            assert_eq!(
                var_of(&[
                    ("STILLREEL_STAGING_PROVIDER", "replicate"),
                    ("STILLREEL_STAGING_TOKEN", "k"),
                    ("STILLREEL_STAGING_MODEL", model),
                ]),
                "STILLREEL_STAGING_MODEL",
                "{model}"
            );
        }
        for input in ["[1]", "{", r#"{"prompt": "{{prompot}}"}"#] {
            assert_eq!(
                var_of(&[
                    ("STILLREEL_STAGING_PROVIDER", "cog"),
                    ("STILLREEL_STAGING_URL", "http://gpu:5000"),
                    ("STILLREEL_STAGING_INPUT", input),
                ]),
                "STILLREEL_STAGING_INPUT",
                "{input}"
            );
        }
        assert_eq!(
            var_of(&[
                ("STILLREEL_STAGING_PROVIDER", "openai"),
                ("STILLREEL_STAGING_TOKEN", "k"),
                ("STILLREEL_STAGING_INPUT", "{}"),
            ]),
            "STILLREEL_STAGING_INPUT"
        );
        assert_eq!(
            var_of(&[
                ("STILLREEL_STAGING_PROVIDER", "openai"),
                ("STILLREEL_STAGING_TOKEN", "k"),
                ("STILLREEL_STAGING_PROMPT", "stage {{roomtype}}"),
            ]),
            "STILLREEL_STAGING_PROMPT"
        );
        for t in ["0", "x", "3601"] {
            assert_eq!(
                var_of(&[
                    ("STILLREEL_STAGING_PROVIDER", "stillreel"),
                    ("STILLREEL_STAGING_URL", "http://p/"),
                    ("STILLREEL_STAGING_TIMEOUT_SECS", t),
                ]),
                "STILLREEL_STAGING_TIMEOUT_SECS"
            );
        }
    }

    #[test]
    fn the_older_settings_set_the_three_generative_roles() {
        let r = roles(&[
            ("STILLREEL_PROVIDER_URL", "https://provider.example/v1"),
            ("STILLREEL_PROVIDER_TOKEN", "secret"),
            ("STILLREEL_PROVIDER_TIMEOUT_SECS", "30"),
            // A role's own setting wins over the older one.
            ("STILLREEL_STAGING_PROVIDER", "openai"),
            ("STILLREEL_STAGING_TOKEN", "sk"),
        ])
        .expect("ok");
        assert_eq!(
            r.get(Role::Staging).map(|c| c.protocol),
            Some(Protocol::OpenAi)
        );
        for role in [Role::Lifestyle, Role::Fan] {
            let c = r.get(role).expect("set by the older settings");
            assert_eq!(c.protocol, Protocol::Stillreel);
            assert_eq!(c.url, "https://provider.example/v1");
            assert_eq!(c.token.as_deref(), Some("secret"));
            assert_eq!(c.timeout, Duration::from_secs(30));
        }
        assert!(r.get(Role::Depth).is_none());
        assert_eq!(r.available_vfx().len(), 13);
        assert_eq!(
            var_of(&[("STILLREEL_PROVIDER_URL", "ftp://x/")]),
            "STILLREEL_PROVIDER_URL"
        );
        assert_eq!(
            var_of(&[
                ("STILLREEL_PROVIDER_URL", "http://x/"),
                ("STILLREEL_PROVIDER_TIMEOUT_SECS", "0")
            ]),
            "STILLREEL_PROVIDER_TIMEOUT_SECS"
        );
    }
}
