//! Provider roles: which model does which job, each configured on its own.
//!
//! A role is one kind of generated input: `staging` (a still for `virtual-staging`),
//! `lifestyle` (a still with people, for `lifestyle`), `fan` (a short clip for
//! `spin-ceiling-fan`), `depth` (a depth map of a photo) and `clip` (a generated clip from a
//! photo and its camera motion). Each reads `STILLREEL_<ROLE>_PROVIDER`, `_URL`, `_TOKEN`,
//! `_MODEL`, `_INPUT`, `_PROMPT` and `_TIMEOUT_SECS` (docs/PROVIDERS.md). The older
//! `STILLREEL_PROVIDER_URL` / `_TOKEN` / `_TIMEOUT_SECS` still work: they set the three
//! generative roles to the `stillreel` contract, unless a role names its own provider.
//!
//! Reading the settings is in `settings.rs` ([`ProviderRoles::from_lookup`]).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Map, Value};
use stillreel_core::VfxType;

/// One kind of generated input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Staging,
    Lifestyle,
    Fan,
    Depth,
    Clip,
}

/// The settings of one role, in this order in [`Role::vars`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Provider = 0,
    Url = 1,
    Token = 2,
    Model = 3,
    Input = 4,
    Prompt = 5,
    TimeoutSecs = 6,
}

macro_rules! role_vars {
    ($role:literal) => {
        [
            concat!("STILLREEL_", $role, "_PROVIDER"),
            concat!("STILLREEL_", $role, "_URL"),
            concat!("STILLREEL_", $role, "_TOKEN"),
            concat!("STILLREEL_", $role, "_MODEL"),
            concat!("STILLREEL_", $role, "_INPUT"),
            concat!("STILLREEL_", $role, "_PROMPT"),
            concat!("STILLREEL_", $role, "_TIMEOUT_SECS"),
        ]
    };
}

/// The older single-provider settings (the `stillreel` contract for the generative roles).
pub const LEGACY_URL: &str = "STILLREEL_PROVIDER_URL";
pub const LEGACY_TOKEN: &str = "STILLREEL_PROVIDER_TOKEN";
pub const LEGACY_TIMEOUT: &str = "STILLREEL_PROVIDER_TIMEOUT_SECS";

impl Role {
    pub const ALL: [Role; 5] = [
        Role::Staging,
        Role::Lifestyle,
        Role::Fan,
        Role::Depth,
        Role::Clip,
    ];

    /// The name in logs, provenance and the result cache (`staging`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Staging => "staging",
            Role::Lifestyle => "lifestyle",
            Role::Fan => "fan",
            Role::Depth => "depth",
            Role::Clip => "clip",
        }
    }

    /// The role's model as messages name it (`the depth model`).
    pub const fn subject(self) -> &'static str {
        match self {
            Role::Staging => "the staging model",
            Role::Lifestyle => "the lifestyle model",
            Role::Fan => "the fan model",
            Role::Depth => "the depth model",
            Role::Clip => "the clip model",
        }
    }

    /// The names of its seven variables.
    pub const fn vars(self) -> [&'static str; 7] {
        match self {
            Role::Staging => role_vars!("STAGING"),
            Role::Lifestyle => role_vars!("LIFESTYLE"),
            Role::Fan => role_vars!("FAN"),
            Role::Depth => role_vars!("DEPTH"),
            Role::Clip => role_vars!("CLIP"),
        }
    }

    /// The variable of one setting.
    pub const fn var(self, setting: Setting) -> &'static str {
        self.vars()[setting as usize]
    }

    /// The vfx type this role makes available, if any (`depth` serves the v25 camera, `clip`
    /// the `generative` engine).
    pub const fn vfx(self) -> Option<VfxType> {
        match self {
            Role::Staging => Some(VfxType::VirtualStaging),
            Role::Lifestyle => Some(VfxType::Lifestyle),
            Role::Fan => Some(VfxType::SpinCeilingFan),
            Role::Depth | Role::Clip => None,
        }
    }

    /// The role that renders a generative vfx type.
    pub fn for_vfx(vfx: VfxType) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.vfx() == Some(vfx))
    }

    /// What the role's answer is.
    pub const fn output(self) -> OutputKind {
        match self {
            Role::Staging | Role::Lifestyle => OutputKind::Still,
            Role::Fan | Role::Clip => OutputKind::Clip,
            Role::Depth => OutputKind::DepthMap,
        }
    }

    /// How long one call may take when `_TIMEOUT_SECS` is unset: a still takes a model tens
    /// of seconds, a generated clip minutes.
    pub const fn default_timeout_secs(self) -> u64 {
        match self {
            Role::Staging | Role::Lifestyle | Role::Depth => 120,
            Role::Fan | Role::Clip => 600,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a role's answer must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// A picture (JPEG, PNG or WebP).
    Still,
    /// A short MP4.
    Clip,
    /// A grayscale PNG at the photo's aspect ratio.
    DepthMap,
}

/// The protocol a role's provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Replicate's hosted predictions API.
    Replicate,
    /// A self-hosted Cog container (the same models on the operator's GPU).
    Cog,
    /// OpenAI-compatible image edits (OpenAI, or a LiteLLM proxy).
    OpenAi,
    /// stillreel's own JSON contract (docs/EFFECTS.md, "Generative provider").
    Stillreel,
}

impl Protocol {
    pub const fn as_str(self) -> &'static str {
        match self {
            Protocol::Replicate => "replicate",
            Protocol::Cog => "cog",
            Protocol::OpenAi => "openai",
            Protocol::Stillreel => "stillreel",
        }
    }

    pub(super) fn parse(text: &str) -> Option<Protocol> {
        [
            Protocol::Replicate,
            Protocol::Cog,
            Protocol::OpenAi,
            Protocol::Stillreel,
        ]
        .into_iter()
        .find(|p| p.as_str().eq_ignore_ascii_case(text))
    }

    /// The base URL when `_URL` is unset (hosted services only).
    pub(super) const fn default_url(self) -> Option<&'static str> {
        match self {
            Protocol::Replicate => Some("https://api.replicate.com"),
            Protocol::OpenAi => Some("https://api.openai.com"),
            Protocol::Cog | Protocol::Stillreel => None,
        }
    }
}

/// Which model a role calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Model {
    /// A Replicate model `owner/name`, on its latest version (the model endpoint) or on a
    /// pinned `version` (the predictions endpoint).
    Replicate {
        owner: String,
        name: String,
        version: Option<String>,
    },
    /// A model by name (OpenAI's `gpt-image-1`, a LiteLLM route), or an operator's label for a
    /// Cog container or a `stillreel` service.
    Named(String),
}

impl std::fmt::Display for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Model::Replicate {
                owner,
                name,
                version: Some(v),
            } => write!(f, "{owner}/{name}:{v}"),
            Model::Replicate { owner, name, .. } => write!(f, "{owner}/{name}"),
            Model::Named(name) => f.write_str(name),
        }
    }
}

/// One role's provider.
#[derive(Clone, PartialEq)]
pub struct RoleConfig {
    pub role: Role,
    pub protocol: Protocol,
    /// The base URL without a trailing slash (for `stillreel`, the endpoint itself).
    pub url: String,
    pub token: Option<String>,
    /// `None` only for `cog` and `stillreel`, where the service is the model.
    pub model: Option<Model>,
    /// The template of the model's `input` (replicate, cog); `None`: the role's default.
    pub input: Option<Map<String, Value>>,
    /// Replaces the role's prompt template.
    pub prompt: Option<String>,
    pub timeout: Duration,
}

/// The token never reaches a log line.
impl std::fmt::Debug for RoleConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoleConfig")
            .field("role", &self.role)
            .field("protocol", &self.protocol)
            .field("url", &self.url)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("input", &self.input)
            .field("prompt", &self.prompt)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl RoleConfig {
    /// The model's name for the result cache and provenance (`cog` without a model: `cog`).
    pub fn model_label(&self) -> String {
        self.model
            .as_ref()
            .map_or_else(|| self.protocol.as_str().to_owned(), ToString::to_string)
    }
}

/// Every configured role.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderRoles {
    pub(super) roles: BTreeMap<Role, RoleConfig>,
}

impl ProviderRoles {
    /// No role configured: the default deployment (procedural effects only).
    pub fn none() -> Self {
        ProviderRoles::default()
    }

    /// The three generative roles on one `stillreel`-contract service (what
    /// `STILLREEL_PROVIDER_URL` configures).
    pub fn legacy(config: &crate::ProviderConfig) -> Self {
        let roles = [Role::Staging, Role::Lifestyle, Role::Fan]
            .into_iter()
            .map(|role| (role, RoleConfig::from_legacy(role, config)))
            .collect();
        ProviderRoles { roles }
    }

    /// These roles and `config` (replacing its role).
    #[must_use]
    pub fn with(mut self, config: RoleConfig) -> Self {
        self.roles.insert(config.role, config);
        self
    }

    pub fn get(&self, role: Role) -> Option<&RoleConfig> {
        self.roles.get(&role)
    }

    pub fn iter(&self) -> impl Iterator<Item = &RoleConfig> {
        self.roles.values()
    }

    pub fn is_empty(&self) -> bool {
        self.roles.is_empty()
    }

    /// The engines a deployment with these roles renders: v24 and v25, and `generative` when
    /// the `clip` role is configured. What validation and `/get_engines` offer.
    pub fn available_engines(&self) -> Vec<stillreel_core::Engine> {
        let mut engines = stillreel_core::Engine::BUILT_IN.to_vec();
        if self.get(Role::Clip).is_some() {
            engines.push(stillreel_core::Engine::Generative);
        }
        engines
    }

    /// The vfx types a deployment with these roles can render: every procedural one, and each
    /// generative one whose role is configured. What validation and `/get_engines` offer.
    pub fn available_vfx(&self) -> Vec<VfxType> {
        VfxType::ALL
            .iter()
            .copied()
            .filter(|t| {
                !t.is_generative() || Role::for_vfx(*t).is_some_and(|r| self.get(r).is_some())
            })
            .collect()
    }
}

impl RoleConfig {
    pub(super) fn from_legacy(role: Role, legacy: &crate::ProviderConfig) -> Self {
        RoleConfig {
            role,
            protocol: Protocol::Stillreel,
            url: legacy.url.clone(),
            token: legacy.token.clone(),
            model: None,
            input: None,
            prompt: None,
            timeout: legacy.timeout,
        }
    }
}
