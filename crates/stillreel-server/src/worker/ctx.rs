//! What every loop of a worker process shares ([`Ctx`]), in a module of its own so the loops
//! and the runner name it without importing their parent.

use std::sync::Arc;

use stillreel_render::{Fetcher, Renderer};
use tokio::sync::Notify;
use uuid::Uuid;

use super::kind::Kinds;
use super::scratch::Scratch;
use super::settings::WorkerSettings;
use crate::state::Services;

/// What every loop shares.
#[derive(Debug)]
pub(super) struct Ctx {
    pub(super) state: Services,
    /// The kinds of job this process runs.
    pub(super) kinds: Kinds,
    pub(super) renderer: Renderer,
    pub(super) settings: WorkerSettings,
    /// Distinguishes this process's leases from other processes'.
    pub(super) node: Uuid,
    /// This process's scratch folder (`<data dir>/work/<node>`).
    pub(super) scratch: Scratch,
    /// Sends webhook deliveries under the media fetcher's address rules and allow-list.
    pub(super) webhooks: Fetcher,
    /// Rung when this process queued jobs, or PostgreSQL announces some: idle loops poll at
    /// once (`Services::jobs_queued`).
    pub(super) wake: Arc<Notify>,
}
