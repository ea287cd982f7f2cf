//! The worker: `STILLREEL_WORKERS` loops per process that claim jobs from the queue and run
//! them, whatever their kind.
//!
//! A kind of job is one file in `kinds/` implementing [`Kind`] (its name and claim rank, its
//! time limit and retry policy, `run`, and `record`, which builds the jobs that follow it),
//! registered with one line in the `kinds!` list of `kinds/mod.rs` ([`kinds::builtin`]). A
//! `create_video` video is the job graph prepare → clip × n → stitch → branding
//! (`docs/RENDER.md`), each step one call of the renderer that reads its inputs from storage
//! and leaves its outputs there; `combine` is one job; webhook deliveries are jobs too.
//!
//! One job, one lease, one runner (`runner.rs`) for every kind: claimed with a lease and a
//! random token, renewed by a heartbeat while `run` works (outside any transaction), and
//! settled in one transaction that completes the job only if the token still matches, has
//! the kind record its result and queues the follow-up jobs; so a job rescued by another
//! process never completes twice and a worker paused past its lease records nothing. A clip's
//! or a stitch's file carries the token in its key; the upload of a worker that lost its
//! lease is an orphan and is removed. Records move `queued → in_progress → complete | error`
//! through conditional updates, which also make a step that runs twice harmless.
//!
//! Transient failures (a fetch timeout, a full disk, a database hiccup, a step over its time
//! limit) go back to the queue with back-off while attempts remain; anything else fails the
//! job for good with the kind's `fail` (a video step fails its video, cancelling its queued
//! siblings).
//!
//! The parts: `loops.rs` claims jobs and rescues expired leases; `runner.rs` runs and settles
//! one job; `ctx.rs` is what the loops share, `settings.rs` their timing; `kind.rs` is the
//! trait and the list of kinds; `kinds/` the kinds; `failure.rs` why a run failed;
//! `observer.rs` writes progress, `scratch.rs` owns the scratch folders, `files.rs` serves the
//! fetcher the server's own files, `orphans.rs` removes the files of attempts that never
//! recorded them.

mod ctx;
mod failure;
mod files;
mod kind;
pub mod kinds;
mod loops;
mod observer;
mod orphans;
mod runner;
mod scratch;
mod settings;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use stillreel_providers::Providers;
use stillreel_render::media::heif::HeifDecoder;
use stillreel_render::{AllowList, FetchConfig, Fetcher, MinRate, RenderConfig, Renderer};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::config::Config;
use crate::db::Db;
use crate::queue;
use crate::state::Services;

use self::ctx::Ctx;
pub use self::failure::{Failure, render_failed};
pub use self::files::ServerFiles;
pub use self::kind::{JobCtx, Kind, Kinds, Settle};
use self::loops::{job_loop, listen_loop, rescue_loop};
pub use self::orphans::sweep as sweep_orphans;
pub use self::runner::{Failed, Recorded, fail, record};
pub use self::settings::{SHUTDOWN_GRACE, WorkerSettings};

/// A configuration the renderer cannot start with.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("STILLREEL_FETCH_ALLOW: {0}")]
    Allow(String),
    #[error("STILLREEL_PUBLIC_URL: {0}")]
    PublicUrl(String),
    #[error("generative provider: {0}")]
    Provider(String),
}

/// The renderer this deployment runs: ffmpeg from the config, the fetcher with the allow-list
/// and the server's own files, storage in the media directory served at `/files`, and the
/// generative provider when `STILLREEL_PROVIDER_URL` is set.
pub fn build_renderer(state: &Services) -> Result<Renderer, WorkerError> {
    let config = &state.config;
    let allow = AllowList::parse(&config.fetch_allow.join(","))
        .map_err(|e| WorkerError::Allow(e.to_string()))?;
    let public_url = reqwest::Url::parse(&config.public_url)
        .map_err(|e| WorkerError::PublicUrl(e.to_string()))?;
    let own = ServerFiles::new(
        Arc::clone(&state.storage),
        config.samples_dir.clone(),
        public_url.path(),
    );
    let limits = &config.limits;
    let fetcher = Fetcher::new(
        FetchConfig {
            allow,
            public_url: Some(public_url),
            max_image_bytes: limits.max_image_bytes,
            max_audio_bytes: limits.max_audio_bytes,
            max_pixels: limits.max_pixels,
            total_timeout: limits.fetch_deadline,
            min_rate: MinRate {
                bytes_per_sec: limits.fetch_min_rate,
                window: limits.fetch_rate_window,
            },
            concurrency: limits.fetch_concurrency,
            // The HEIF decoder parses untrusted pictures as ffmpeg does: the same memory limit.
            heif: HeifDecoder {
                memory_limit: limits.ffmpeg_max_memory,
                ..HeifDecoder::default()
            },
            ..FetchConfig::default()
        },
        Some(Arc::new(own)),
    );
    // The storage the routes serve from: one trait, one place.
    let storage = Arc::clone(&state.storage);
    let providers = Providers::new(config.providers.clone())
        .map_err(|e| WorkerError::Provider(e.to_string()))?;
    let render_config = RenderConfig {
        ffmpeg: config.ffmpeg.clone(),
        ffmpeg_memory_limit: limits.ffmpeg_max_memory,
        disclosure_caption: config.disclosure_caption,
        card_cache: Some(crate::storage::card_cache_prefix()),
        ..RenderConfig::default()
    };
    state.set_providers(providers.clone());
    log_provider_health(&providers);
    let claims = Arc::new(crate::repo::model_calls::DbClaims(state.db.clone()));
    Ok(Renderer::new(render_config, fetcher, storage)
        .with_providers(providers)
        .with_call_claims(claims))
}

/// Logs each model role's health once, in the background: a Cog container whose setup failed
/// shows in the start-up log, and the start waits for no host.
fn log_provider_health(providers: &Providers) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    for config in providers.roles().iter() {
        let Some(client) = providers.get(config.role).cloned() else {
            continue;
        };
        runtime.spawn(async move {
            let health = client.check_health(Duration::from_secs(5)).await;
            let config = client.config();
            tracing::info!(
                role = config.role.as_str(),
                protocol = config.protocol.as_str(),
                health = health.as_str(),
                "model provider"
            );
        });
    }
}

/// The client of webhook deliveries: the same allow-list (`STILLREEL_FETCH_ALLOW`, already
/// checked by [`build_renderer`]) and public-address rules as media fetching.
fn webhook_fetcher(config: &Config) -> Fetcher {
    let allow = AllowList::parse(&config.fetch_allow.join(",")).unwrap_or_default();
    Fetcher::new(
        FetchConfig {
            allow,
            ..FetchConfig::default()
        },
        None,
    )
}

/// The running worker loops of this process.
#[derive(Debug)]
pub struct Workers {
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Stops claiming jobs, lets running renders finish (for at most the grace period, after
    /// which they are handed back to the queue) and waits for the loops to end.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        for task in self.tasks {
            let _ = task.await;
        }
    }
}

/// Starts `settings.workers` job loops (and the lease rescuer) on `state`, running the
/// service's own kinds of job.
pub fn start(state: Services, renderer: Renderer, settings: WorkerSettings) -> Workers {
    start_with(state, renderer, settings, kinds::builtin())
}

/// [`start`], running `kinds`.
pub fn start_with(
    state: Services,
    renderer: Renderer,
    settings: WorkerSettings,
    kinds: Kinds,
) -> Workers {
    let (stop, stopped) = watch::channel(false);
    let mut tasks = Vec::new();
    if settings.workers > 0 {
        let node = Uuid::new_v4();
        let root = work_root(&state.config);
        let scratch = match scratch::Scratch::claim(&root, node) {
            Ok(scratch) => scratch,
            Err(err) => {
                tracing::error!(dir = %root.display(), error = %err, "cannot make the scratch folder; no render workers");
                return Workers { stop, tasks };
            }
        };
        // Scratch folders of processes that died without cleaning up (kill -9, a crash).
        let keep = scratch.dir().to_path_buf();
        tokio::task::spawn_blocking(move || {
            let removed = scratch::sweep(&root, &keep);
            if !removed.is_empty() {
                tracing::info!(
                    folders = removed.len(),
                    "removed scratch folders of processes that are gone"
                );
            }
        });
        let webhooks = webhook_fetcher(&state.config);
        let wake = Arc::clone(&state.jobs_queued);
        if let Db::Postgres(pool) = &state.db {
            tasks.push(tokio::spawn(listen_loop(
                pool.clone(),
                Arc::clone(&wake),
                stopped.clone(),
            )));
        }
        // No role, no model calls: the default deployment runs no loop for them.
        let model_workers = if renderer.providers().roles().is_empty() {
            0
        } else {
            settings.model_workers
        };
        let ctx = Arc::new(Ctx {
            state,
            kinds,
            renderer,
            settings,
            node,
            scratch,
            webhooks,
            wake,
        });
        tasks.push(tokio::spawn(rescue_loop(Arc::clone(&ctx), stopped.clone())));
        for n in 0..ctx.settings.workers {
            tasks.push(tokio::spawn(job_loop(
                Arc::clone(&ctx),
                stopped.clone(),
                n,
                queue::Lane::Render,
            )));
        }
        for n in 0..model_workers {
            tasks.push(tokio::spawn(job_loop(
                Arc::clone(&ctx),
                stopped.clone(),
                n,
                queue::Lane::Model,
            )));
        }
        tracing::info!(
            workers = ctx.settings.workers,
            model_workers,
            lease_secs = ctx.settings.lease.as_secs(),
            "render workers started"
        );
    }
    Workers { stop, tasks }
}

/// Where jobs' scratch files go: one folder per process below it (`worker/scratch.rs`).
pub fn work_root(config: &Config) -> PathBuf {
    config.data_dir.join("work")
}
