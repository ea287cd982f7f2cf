//! The render worker: `STILLREEL_WORKERS` loops per process that claim jobs from the queue
//! and drive `stillreel-render` for them.
//!
//! One job, one lease: claimed with a lease, renewed by a heartbeat task while the render runs
//! (outside any transaction), settled only after a last heartbeat proved the lease is still
//! ours, so a job rescued by another process never completes twice. The record moves
//! `queued → in_progress → complete | error` through `repo::render`, whose conditional updates
//! also make a job that runs twice harmless. Clips stored by an earlier attempt are reused
//! (`RenderObserver::existing_clip`), so a rescued job does not render them again.
//!
//! Transient failures (a fetch timeout, a full disk, a database hiccup) go back to the queue
//! with back-off while attempts remain; anything else fails the video at once.

mod files;
mod observer;
mod scratch;

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::FutureExt;
use std::time::Duration;

use stillreel_core::JobError;
use stillreel_render::{
    AllowList, BrandJob, BrandSlot, ClipRequest, CombineJob, FetchConfig, Fetcher, JobFailure,
    MinRate, Provider, ProviderConfig, RenderConfig, Renderer, StoredVideo, VideoJob, vfx_stage,
};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::config::Config;
use crate::db::{Db, DbError};
use crate::queue::{self, Job, JobKind};
use crate::repo::render::{self as repo, RenderInput, RenderSource};
use crate::state::AppState;
use crate::webhook;

pub use self::files::ServerFiles;
use self::observer::{DbObserver, Target};

/// How long running renders may go on after SIGTERM before they are handed back to the queue.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// Timing of the worker loops.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// Job loops in this process (`STILLREEL_WORKERS`; 0 = none).
    pub workers: usize,
    /// Lease taken on a job (`STILLREEL_JOB_LEASE_SECS`).
    pub lease: Duration,
    /// How often a running job's lease is renewed (a third of the lease).
    pub heartbeat: Duration,
    /// How often expired leases are put back in the queue (half the lease, at most 15 s):
    /// a crashed process's jobs run again within lease + this, under a minute by default.
    pub requeue_every: Duration,
    /// Pause between polls of an empty queue.
    pub idle_poll: Duration,
    /// See [`SHUTDOWN_GRACE`].
    pub grace: Duration,
    /// Jobs of one account running at once (`STILLREEL_ACCOUNT_MAX_RUNNING`).
    pub account_max_running: usize,
}

impl WorkerSettings {
    pub fn from_config(config: &Config) -> Self {
        let lease = Duration::from_secs(config.job_lease_secs.max(3));
        WorkerSettings {
            workers: config.workers,
            lease,
            heartbeat: lease / 3,
            requeue_every: (lease / 2).clamp(Duration::from_secs(1), Duration::from_secs(15)),
            idle_poll: Duration::from_millis(500),
            grace: SHUTDOWN_GRACE,
            account_max_running: config.limits.account_max_running,
        }
    }
}

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
pub fn build_renderer(state: &AppState) -> Result<Renderer, WorkerError> {
    let config = &state.config;
    let allow = AllowList::parse(&config.fetch_allow.join(","))
        .map_err(|e| WorkerError::Allow(e.0.clone()))?;
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
            ..FetchConfig::default()
        },
        Some(Arc::new(own)),
    );
    // The storage the routes serve from: one trait, one place.
    let storage = Arc::clone(&state.storage);
    let provider = ProviderConfig::from_env()
        .map_err(WorkerError::Provider)?
        .map(Provider::new)
        .transpose()
        .map_err(WorkerError::Provider)?;
    let render_config = RenderConfig {
        ffmpeg: config.ffmpeg.clone(),
        ffmpeg_memory_limit: limits.ffmpeg_max_memory,
        ..RenderConfig::default()
    };
    Ok(Renderer::new(render_config, fetcher, storage).with_provider(provider))
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

/// What every loop shares.
#[derive(Debug)]
struct Ctx {
    db: Db,
    state: AppState,
    renderer: Renderer,
    settings: WorkerSettings,
    /// Distinguishes this process's leases from other processes'.
    node: Uuid,
    /// This process's scratch folder (`<data dir>/work/<node>`).
    scratch: scratch::Scratch,
    /// Sends webhook deliveries under the media fetcher's address rules and allow-list.
    webhooks: Fetcher,
}

/// Starts `settings.workers` job loops (and the lease rescuer) on `state`.
pub fn start(state: AppState, renderer: Renderer, settings: WorkerSettings) -> Workers {
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
        let ctx = Arc::new(Ctx {
            db: state.db.clone(),
            state,
            renderer,
            settings,
            node,
            scratch,
            webhooks,
        });
        tasks.push(tokio::spawn(rescue_loop(Arc::clone(&ctx), stopped.clone())));
        for n in 0..ctx.settings.workers {
            tasks.push(tokio::spawn(job_loop(Arc::clone(&ctx), stopped.clone(), n)));
        }
        tracing::info!(
            workers = ctx.settings.workers,
            lease_secs = ctx.settings.lease.as_secs(),
            "render workers started"
        );
    }
    Workers { stop, tasks }
}

async fn rescue_loop(ctx: Arc<Ctx>, mut stop: watch::Receiver<bool>) {
    let mut tick = tokio::time::interval(ctx.settings.requeue_every);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        match queue::requeue_expired(&ctx.db).await {
            Ok(0) => {}
            Ok(n) => {
                ctx.state.metrics.record_lease_expiries(n);
                tracing::warn!(jobs = n, "put back jobs whose worker lease expired");
            }
            Err(err) => tracing::warn!(error = %err, "lease rescue failed"),
        }
    }
}

async fn job_loop(ctx: Arc<Ctx>, mut stop: watch::Receiver<bool>, n: usize) {
    let worker_id = format!("{}/{n}", ctx.node);
    while !*stop.borrow() {
        let cap = ctx.settings.account_max_running;
        let asked = std::time::Instant::now();
        let claimed = queue::claim_fair(&ctx.db, &worker_id, ctx.settings.lease, cap).await;
        if let Ok(job) = &claimed {
            ctx.state
                .metrics
                .record_claim(asked.elapsed(), job.is_some());
        }
        match claimed {
            Ok(Some(job)) => run_job(&ctx, &worker_id, job, stop.clone()).await,
            Ok(None) => {
                tokio::select! {
                    () = tokio::time::sleep(ctx.settings.idle_poll) => {}
                    _ = stop.changed() => {}
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, "claiming a job failed");
                tokio::time::sleep(ctx.settings.idle_poll * 4).await;
            }
        }
    }
}

/// Why a job did not produce a file.
#[derive(Debug)]
enum Failure {
    /// The renderer's verdict.
    Job(JobFailure),
    /// The database failed around the render: worth another attempt.
    Db(DbError),
    /// The job cannot be done and retrying will not help.
    Permanent(JobError),
}

impl From<DbError> for Failure {
    fn from(err: DbError) -> Self {
        Failure::Db(err)
    }
}

impl Failure {
    fn is_transient(&self) -> bool {
        match self {
            Failure::Job(f) => f.is_transient(),
            Failure::Db(_) => true,
            Failure::Permanent(_) => false,
        }
    }

    fn job_error(&self) -> JobError {
        match self {
            Failure::Job(f) => JobError {
                code: f.code().to_owned(),
                message: f.user_message(),
                field: f.field().map(str::to_owned),
            },
            Failure::Db(_) => render_failed("the video could not be rendered"),
            Failure::Permanent(e) => e.clone(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Job(e) => write!(f, "{e}"),
            Failure::Db(e) => write!(f, "database: {e}"),
            Failure::Permanent(e) => write!(f, "{}: {}", e.code, e.message),
        }
    }
}

fn render_failed(message: &str) -> JobError {
    JobError {
        code: "render_failed".to_owned(),
        message: message.to_owned(),
        field: None,
    }
}

/// How a job ended.
enum Outcome {
    /// The work is done (file stored, or nothing left to do); record it.
    Done(Option<StoredVideo>),
    Failed(Failure),
    /// Another worker may own the job now: touch nothing.
    LeaseLost,
    /// Shutting down and the grace period ran out: give the job back.
    HandBack,
    /// A webhook delivery attempt was made (or was not needed).
    Webhook(webhook::AttemptResult),
}

async fn run_job(ctx: &Ctx, worker_id: &str, job: Job, mut stop: watch::Receiver<bool>) {
    let started = std::time::Instant::now();
    tracing::info!(job = job.id, video = %job.video_id, kind = job.kind.as_str(), attempt = job.attempts, "job claimed");
    let (lost_tx, lost_rx) = tokio::sync::oneshot::channel::<()>();
    let heartbeat = {
        let db = ctx.db.clone();
        let (id, owner, lease, every) = (
            job.id,
            worker_id.to_owned(),
            ctx.settings.lease,
            ctx.settings.heartbeat,
        );
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.tick().await;
            loop {
                tick.tick().await;
                match queue::heartbeat(&db, id, &owner, lease).await {
                    Ok(true) => {}
                    Ok(false) => {
                        let _ = lost_tx.send(());
                        return;
                    }
                    Err(err) => tracing::warn!(job = id, error = %err, "heartbeat failed"),
                }
            }
        })
    };
    // Aborts the heartbeat however this function is left, a panic included: a heartbeat that
    // outlived its job would keep a dead job's lease alive forever.
    let heartbeat = AbortOnDrop(heartbeat);
    let work_dir = ctx.scratch.job_dir(job.id, job.attempts);
    let grace = ctx.settings.grace;
    let work = guarded(job.id, process(ctx, &job, &work_dir));
    let outcome = tokio::select! {
        outcome = work => outcome,
        _ = lost_rx => Outcome::LeaseLost,
        () = async move {
            let _ = stop.wait_for(|s| *s).await;
            tokio::time::sleep(grace).await;
        } => Outcome::HandBack,
    };
    drop(heartbeat);
    let label = outcome_label(&outcome);
    if let Err(err) = settle(ctx, worker_id, &job, outcome).await {
        // The lease runs out and the job is rescued: it will be settled by the next attempt.
        tracing::warn!(job = job.id, error = %err, "could not record the job's outcome");
    }
    let _ = tokio::fs::remove_dir_all(&work_dir).await;
    ctx.state
        .metrics
        .record_job(job.kind.as_str(), label, started.elapsed());
}

/// How a job ended, for `stillreel_job_duration_seconds`.
fn outcome_label(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Done(_) | Outcome::Webhook(_) => "done",
        Outcome::Failed(_) => "failed",
        Outcome::LeaseLost => "lease_lost",
        Outcome::HandBack => "handed_back",
    }
}

/// Runs a job's work so that a panic in it (a bug, never input: but a bug must cost one job,
/// not a worker slot) fails the job like any permanent failure.
async fn guarded(job_id: i64, work: impl Future<Output = Outcome>) -> Outcome {
    std::panic::AssertUnwindSafe(work)
        .catch_unwind()
        .await
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(job = job_id, panic = %what, "the job panicked; failing it");
            Outcome::Failed(Failure::Permanent(render_failed(
                "the video could not be rendered",
            )))
        })
}

/// Aborts a task when dropped.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Does the job's work. Never writes the final status: [`settle`] does, under the lease.
async fn process(ctx: &Ctx, job: &Job, work_dir: &std::path::Path) -> Outcome {
    if matches!(job.kind, JobKind::VideoWebhook | JobKind::BrandingWebhook) {
        let public_url = &ctx.state.config.public_url;
        return match webhook::attempt(&ctx.db, &ctx.webhooks, public_url, job).await {
            Ok(result) => Outcome::Webhook(result),
            Err(err) => Outcome::Failed(Failure::Db(err)),
        };
    }
    let input = match repo::render_input(&ctx.db, job.video_id).await {
        Ok(Some(input)) => input,
        // The video is gone: nothing to do.
        Ok(None) => return Outcome::Done(None),
        Err(err) => return Outcome::Failed(Failure::Db(err)),
    };
    let result = match job.kind {
        JobKind::Render | JobKind::Combine => main_video(ctx, &input, work_dir).await,
        JobKind::Branding => branded(ctx, &input, work_dir).await,
        JobKind::VideoWebhook | JobKind::BrandingWebhook => Ok(None),
    };
    match result {
        Ok(video) => Outcome::Done(video),
        Err(failure) => Outcome::Failed(failure),
    }
}

fn key_prefix(video_id: Uuid) -> String {
    format!("videos/{video_id}")
}

/// Renders (or combines) the main video. `None`: it was already complete.
async fn main_video(
    ctx: &Ctx,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Option<StoredVideo>, Failure> {
    if input.video_key.is_some() {
        return Ok(None);
    }
    repo::start_video(&ctx.db, input.video_id).await?;
    let (observer, writer) = match &input.source {
        RenderSource::Create { clips, .. } => DbObserver::spawn(
            ctx.db.clone(),
            Target::Video(input.video_id),
            clips
                .iter()
                .map(|c| (c.clip.id, c.clip.clip_key.clone()))
                .collect(),
        ),
        RenderSource::Combine { .. } => {
            DbObserver::spawn(ctx.db.clone(), Target::Video(input.video_id), Vec::new())
        }
    };
    let result = match &input.source {
        RenderSource::Create { request, clips } => {
            let job = VideoJob {
                key_prefix: key_prefix(input.video_id),
                clips: clips
                    .iter()
                    .map(|c| ClipRequest {
                        image_url: c.clip.image_url.clone(),
                        camera_motion: c.clip.camera_motion,
                        effect: c.clip.vfx.as_ref().map(vfx_stage),
                    })
                    .collect(),
                orientation: input.orientation,
                resolution: input.resolution,
                engine: input.engine,
                audio_url: request.audio_url.clone(),
            };
            ctx.renderer.render_video(&job, work_dir, &observer).await
        }
        RenderSource::Combine { request, clip_keys } => {
            let job = CombineJob {
                key_prefix: key_prefix(input.video_id),
                clip_keys: clip_keys.clone(),
                orientation: input.orientation,
                resolution: input.resolution,
                audio_url: request.audio_url.clone(),
            };
            ctx.renderer.combine(&job, work_dir, &observer).await
        }
    };
    // Every clip the renderer stored is recorded before the video can complete.
    drop(observer);
    let _ = writer.await;
    result.map(Some).map_err(Failure::Job)
}

/// Renders the branded copy of a complete video.
async fn branded(
    ctx: &Ctx,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Option<StoredVideo>, Failure> {
    let Some(branding) = &input.branding else {
        return Ok(None);
    };
    let Some(main_key) = input.video_key.clone() else {
        return Err(Failure::Permanent(render_failed(
            "the main video is not complete, so it cannot be branded",
        )));
    };
    let resolve = |slot: &Option<stillreel_core::TemplateSlot>| match slot {
        None => Ok(None),
        Some(slot) => BrandSlot::resolve(slot, ctx.state.templates)
            .map(Some)
            .ok_or_else(|| {
                Failure::Permanent(render_failed(&format!(
                    "template {:?} is not in this server's catalog",
                    slot.template
                )))
            }),
    };
    let intro = resolve(&branding.templates.intro)?;
    let outro = resolve(&branding.templates.outro)?;
    let clip_count = match &input.source {
        RenderSource::Create { clips, .. } => clips.len(),
        RenderSource::Combine { clip_keys, .. } => clip_keys.len(),
    };
    repo::start_branding(&ctx.db, input.video_id).await?;
    let job = BrandJob {
        key_prefix: key_prefix(input.video_id),
        main_key,
        clip_frames: BrandJob::standard_clips(clip_count),
        orientation: input.orientation,
        resolution: input.resolution,
        intro,
        outro,
        speed_ramp: branding.speed_ramp,
    };
    let (observer, writer) =
        DbObserver::spawn(ctx.db.clone(), Target::Branding(input.video_id), Vec::new());
    let result = ctx.renderer.render_branded(&job, work_dir, &observer).await;
    drop(observer);
    let _ = writer.await;
    result.map(|b| Some(b.video)).map_err(Failure::Job)
}

/// Records how the job ended, each write only while the lease is provably ours.
async fn settle(ctx: &Ctx, worker_id: &str, job: &Job, outcome: Outcome) -> Result<(), DbError> {
    let db = &ctx.db;
    match outcome {
        Outcome::LeaseLost => {
            tracing::warn!(job = job.id, "lease lost; another worker owns the job now");
            Ok(())
        }
        Outcome::HandBack => {
            queue::release(db, job.id, worker_id).await?;
            tracing::info!(job = job.id, "shutting down: job handed back to the queue");
            Ok(())
        }
        Outcome::Webhook(result) => settle_webhook(ctx, worker_id, job, &result).await,
        Outcome::Done(video) => {
            // A last heartbeat proves the lease is ours and keeps it for a whole lease more:
            // nobody can rescue the job while the result is written.
            if !queue::heartbeat(db, job.id, worker_id, ctx.settings.lease).await? {
                tracing::warn!(job = job.id, "lease lost before completion; result dropped");
                return Ok(());
            }
            match (job.kind, video) {
                (JobKind::Branding, Some(video)) => {
                    repo::complete_branding(db, job.video_id, &video.key).await?;
                }
                (JobKind::Branding, None) => {}
                (_, Some(video)) => {
                    repo::complete_video(db, job.video_id, &video.key).await?;
                    enqueue_branding(db, job.video_id).await?;
                }
                // Already complete (an earlier attempt died before closing its job): make
                // sure the branded render was queued.
                (_, None) => enqueue_branding(db, job.video_id).await?,
            }
            queue::complete(db, job.id, worker_id).await?;
            tracing::info!(job = job.id, video = %job.video_id, kind = job.kind.as_str(), "job complete");
            Ok(())
        }
        Outcome::Failed(failure) => {
            if !queue::heartbeat(db, job.id, worker_id, ctx.settings.lease).await? {
                tracing::warn!(job = job.id, "lease lost before recording a failure");
                return Ok(());
            }
            if failure.is_transient() && job.attempts < job.max_attempts {
                let delay = queue::backoff(job.attempts);
                tracing::warn!(job = job.id, attempt = job.attempts, retry_in_secs = delay.as_secs(), error = %failure, "job failed; will retry");
                queue::fail(db, job.id, worker_id, &failure.to_string(), Some(delay)).await?;
                return Ok(());
            }
            tracing::warn!(job = job.id, video = %job.video_id, error = %failure, "job failed");
            let error = failure.job_error();
            // One transaction: a crash can never leave the job failed and its record
            // `in_progress`. (A delivery whose database access keeps failing has no record:
            // its event stays pending.)
            if !repo::fail_job_for_good(db, job, worker_id, &failure.to_string(), &error).await? {
                tracing::warn!(job = job.id, "lease lost while recording a failure");
            }
            Ok(())
        }
    }
}

/// Records a delivery attempt and completes its job, or puts it back for the schedule's
/// next delay. One log line per attempt, with the video id and the `webhook-id`.
async fn settle_webhook(
    ctx: &Ctx,
    worker_id: &str,
    job: &Job,
    result: &webhook::AttemptResult,
) -> Result<(), DbError> {
    let db = &ctx.db;
    let schedule = &ctx.state.config.webhook_retry_schedule;
    let Some((attempt, verdict)) =
        webhook::record_attempt(db, job.video_id, job.kind, result, schedule).await?
    else {
        queue::complete(db, job.id, worker_id).await?;
        return Ok(());
    };
    let message_id = match result {
        webhook::AttemptResult::Answered { message_id, .. }
        | webhook::AttemptResult::NoAnswer { message_id, .. }
        | webhook::AttemptResult::Unsendable { message_id, .. } => message_id.as_str(),
        webhook::AttemptResult::Settled => "",
    };
    ctx.state.metrics.record_webhook(verdict.outcome);
    tracing::info!(
        video = %job.video_id,
        webhook_id = message_id,
        kind = job.kind.as_str(),
        attempt,
        outcome = verdict.outcome,
        http_status = verdict.last_status,
        retry_in_secs = verdict.retry_in.map(|d| d.as_secs()),
        error = verdict.error.as_deref(),
        "webhook delivery attempt"
    );
    match verdict.retry_in {
        Some(delay) => {
            queue::fail(
                db,
                job.id,
                worker_id,
                verdict.error.as_deref().unwrap_or(""),
                Some(delay),
            )
            .await?;
        }
        None => {
            queue::complete(db, job.id, worker_id).await?;
        }
    }
    Ok(())
}

/// Queues the branded render of a complete video that asked for one, unless already queued.
async fn enqueue_branding(db: &Db, video_id: Uuid) -> Result<(), DbError> {
    let Some(input) = repo::render_input(db, video_id).await? else {
        return Ok(());
    };
    if input.branding.is_none() {
        return Ok(());
    }
    let jobs = queue::jobs_of_video(db, video_id).await?;
    if jobs.iter().any(|(kind, _, _)| *kind == JobKind::Branding) {
        return Ok(());
    }
    let mut tx = db.begin().await?;
    queue::enqueue(&mut tx, video_id, JobKind::Branding).await?;
    tx.commit().await
}

/// What a `stillreel worker` process answers on `STILLREEL_WORKER_LISTEN`: `/healthz` and
/// `/metrics` (queue depth included), nothing of the API.
pub fn health_router(state: AppState) -> axum::Router {
    use crate::routes::ops;
    axum::Router::new()
        .route("/healthz", axum::routing::get(ops::healthz))
        .route("/metrics", axum::routing::get(ops::metrics))
        .with_state(state)
}

/// Where jobs' scratch files go: one folder per process below it (`worker/scratch.rs`).
pub fn work_root(config: &Config) -> PathBuf {
    config.data_dir.join("work")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_panicking_job_fails_without_taking_the_slot_down() {
        let outcome = guarded(7, async { panic!("a bug in a job") }).await;
        match outcome {
            Outcome::Failed(failure) => {
                assert!(!failure.is_transient(), "a panic is not retried");
                assert_eq!(failure.job_error().code, "render_failed");
            }
            _ => panic!("a panic must end as a failed job"),
        }
        // The same slot runs the next job normally.
        assert!(matches!(
            guarded(8, async { Outcome::Done(None) }).await,
            Outcome::Done(None)
        ));
    }

    #[tokio::test]
    async fn the_heartbeat_stops_with_its_job_even_on_a_panic() {
        let beats = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&beats);
        let heartbeat = AbortOnDrop(tokio::spawn(async move {
            loop {
                counter.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }));
        // The guard is dropped while a panic unwinds through the job's scope.
        let outcome = guarded(9, async move {
            let _heartbeat = heartbeat;
            tokio::time::sleep(Duration::from_millis(30)).await;
            panic!("a bug while the heartbeat runs");
        })
        .await;
        assert!(matches!(outcome, Outcome::Failed(_)));
        tokio::time::sleep(Duration::from_millis(20)).await;
        let after_abort = beats.load(Ordering::SeqCst);
        assert!(after_abort > 0, "the heartbeat ran while the job did");
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert_eq!(
            beats.load(Ordering::SeqCst),
            after_abort,
            "the heartbeat kept beating after its job panicked"
        );
    }
}
