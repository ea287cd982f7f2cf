//! Model providers: the generated inputs of a clip (a staged or peopled still, a fan clip, a
//! depth map, a generated clip), each made by the role configured for it (`role`), over one of
//! four protocols: Replicate's predictions and a self-hosted Cog container (`replicate`),
//! OpenAI-compatible image edits (`openai`), and stillreel's own JSON contract (`stillreel`).
//! The adapters are request builders and answer parsers; `http` sends them; `client` checks
//! every answer as untrusted input. docs/PROVIDERS.md is the operator's side of this.
//! `bmff` is the workspace's ISO-BMFF box walker (MP4 and HEIF): here, because both this crate
//! and the render crate may name it.

pub mod bmff;
pub mod claims;
pub mod client;
pub mod error;
pub mod health;
pub mod http;
pub mod mp4;
pub mod openai;
pub mod placeholder;
pub mod prompt;
pub mod replicate;
pub mod role;
pub mod settings;
pub mod stillreel;

pub use claims::{CallClaims, LocalClaims};
pub use client::{Providers, RoleClient, RoleRequest, check_answer};
pub use error::ProviderError;
pub use health::{Health, HealthBoard};
pub use http::MAX_ANSWER_BYTES;
pub use role::{Model, OutputKind, Protocol, ProviderRoles, Role, RoleConfig};
pub use settings::RoleSetupError;
pub use stillreel::{
    DEFAULT_TIMEOUT_SECS, OutputSpec, Provider, ProviderConfig, ProviderOutput, ProviderSetupError,
    decode_answer,
};
