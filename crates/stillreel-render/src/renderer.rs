//! [`Renderer`]: what every step runs with (config, fetcher, storage, optional provider). The
//! steps themselves are `impl Renderer` blocks in the modules above this one (`steps`, `video`,
//! `brand`), so this module imports none of them.

use std::sync::Arc;

use crate::config::RenderConfig;
use crate::ffmpeg::runner::Runner;
use crate::media::fetch::Fetcher;
use crate::store::storage::Storage;
use stillreel_providers::{CallClaims, LocalClaims, Provider, ProviderRoles, Providers};

/// Renders videos.
#[derive(Debug, Clone)]
pub struct Renderer {
    pub(crate) config: RenderConfig,
    pub(crate) fetcher: Fetcher,
    pub(crate) storage: Arc<dyn Storage>,
    pub(crate) providers: Providers,
    /// Who is calling a model for which input (one call per input, see `provider::claims`).
    pub(crate) call_claims: Arc<dyn CallClaims>,
}

impl Renderer {
    pub fn new(config: RenderConfig, fetcher: Fetcher, storage: Arc<dyn Storage>) -> Self {
        Renderer {
            config,
            fetcher,
            storage,
            providers: Providers::default(),
            call_claims: Arc::new(LocalClaims::default()),
        }
    }

    /// Keeps claims on model calls in `claims` (the server's database, shared by every
    /// worker) instead of in this process.
    pub fn with_call_claims(mut self, claims: Arc<dyn CallClaims>) -> Self {
        self.call_claims = claims;
        self
    }

    /// Uses `providers` for the generated inputs of clips (`virtual-staging`, `lifestyle`,
    /// `spin-ceiling-fan`, depth maps). Without a role, a clip asking for it fails (the server
    /// should have refused the request with `vfx_unavailable` already; see
    /// [`ProviderRoles::available_vfx`]).
    pub fn with_providers(mut self, providers: Providers) -> Self {
        self.providers = providers;
        self
    }

    /// One `stillreel`-contract provider for the three generative roles (what
    /// `STILLREEL_PROVIDER_URL` configures).
    pub fn with_provider(self, provider: Option<Provider>) -> Self {
        let roles = provider
            .map(|p| ProviderRoles::legacy(p.config()))
            .unwrap_or_default();
        let providers = Providers::new(roles).unwrap_or_default();
        self.with_providers(providers)
    }

    /// The configured provider roles.
    pub fn providers(&self) -> &Providers {
        &self.providers
    }

    /// The vfx types this renderer can draw (procedural ones, plus each generative one whose
    /// role is configured).
    pub fn available_vfx(&self) -> Vec<stillreel_core::VfxType> {
        self.providers.roles().available_vfx()
    }

    /// The engines this renderer can draw (v24, v25, and `generative` with a `clip` role).
    pub fn available_engines(&self) -> Vec<stillreel_core::Engine> {
        self.providers.roles().available_engines()
    }

    /// How this renderer runs ffmpeg.
    pub fn config(&self) -> &RenderConfig {
        &self.config
    }

    pub(crate) fn runner(&self) -> Runner {
        Runner::new(&self.config.ffmpeg, self.config.step_time_limit)
            .with_memory_limit(self.config.ffmpeg_memory_limit)
    }
}
