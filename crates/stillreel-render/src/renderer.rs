//! [`Renderer`]: what every step runs with (config, fetcher, storage, optional provider). The
//! steps themselves are `impl Renderer` blocks in the modules above this one (`steps`, `video`,
//! `brand`), so this module imports none of them.

use std::sync::Arc;

use crate::config::RenderConfig;
use crate::fetch::Fetcher;
use crate::provider::Provider;
use crate::runner::Runner;
use crate::storage::Storage;

/// Renders videos.
#[derive(Debug, Clone)]
pub struct Renderer {
    pub(crate) config: RenderConfig,
    pub(crate) fetcher: Fetcher,
    pub(crate) storage: Arc<dyn Storage>,
    pub(crate) provider: Option<Provider>,
}

impl Renderer {
    pub fn new(config: RenderConfig, fetcher: Fetcher, storage: Arc<dyn Storage>) -> Self {
        Renderer {
            config,
            fetcher,
            storage,
            provider: None,
        }
    }

    /// Uses `provider` for generative vfx (`virtual-staging`, `lifestyle`, `spin-ceiling-fan`).
    /// Without one, a clip asking for them fails (the server should have refused the request
    /// with `vfx_unavailable` already; see [`crate::provider::available_vfx`]).
    pub fn with_provider(mut self, provider: Option<Provider>) -> Self {
        self.provider = provider;
        self
    }

    /// The vfx types this renderer can draw (procedural ones, plus generative ones with a
    /// provider).
    pub fn available_vfx(&self) -> Vec<stillreel_core::VfxType> {
        crate::provider::available_vfx(self.provider.as_ref().map(Provider::config))
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
