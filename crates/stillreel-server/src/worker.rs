//! The render worker: `STILLREEL_WORKERS` loops per process that claim jobs from the queue
//! and drive `stillreel-render` for them.
//!
//! Any loop takes any job and dispatches on its kind: a `create_video` video is the job
//! graph prepare → clip × n → stitch → branding (`docs/RENDER.md`), each step one call of the
//! renderer that reads its inputs from storage and leaves its outputs there; `combine` stays
//! one job.
//!
//! One job, one lease: claimed with a lease and a random token, renewed by a heartbeat task
//! while the step runs (outside any transaction), and settled in one transaction that
//! completes the job only if the token still matches (`repo::graph`), so a job rescued by
//! another process never completes twice and a worker paused past its lease records nothing.
//! A clip's file carries the token in its key; the upload of a worker that lost its lease is
//! an orphan and is removed. The record moves `queued → in_progress → complete | error`
//! through conditional updates, which also make a step that runs twice harmless.
//!
//! Transient failures (a fetch timeout, a full disk, a database hiccup, a step over its time
//! limit) go back to the queue with back-off while attempts remain; anything else fails the
//! video at once, cancelling its queued siblings.

mod files;
mod observer;
mod scratch;
mod webhook;

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::FutureExt;
use std::time::Duration;

use stillreel_core::JobError;
use stillreel_render::{
    AllowList, BrandJob, BrandSlot, ClipJob, CombineJob, FetchConfig, Fetcher, JobFailure, MinRate,
    PrepareJob, Prepared, Provider, RenderConfig, Renderer, StitchJob, StoredClip, StoredVideo,
    vfx_stage,
};
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::config::Config;
use crate::db::{Db, DbError};
use crate::queue::{self, Job, JobKind};
use crate::repo::graph::{self, ClipRecorded};
use crate::repo::render::{self as repo, RenderInput, RenderSource};
use crate::repo::webhooks;
use crate::state::AppState;
use crate::webhook::AttemptResult;

pub use self::files::ServerFiles;
use self::observer::DbObserver;

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
    /// Wall time one job may take before it is stopped (its ffmpeg killed) and retried: the
    /// runner's per-run limit covers one ffmpeg; this covers a whole step (downloads,
    /// provider calls, several runs).
    pub job_time_limit: Duration,
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
            job_time_limit: config.limits.fetch_deadline
                + RenderConfig::default().step_time_limit * 2,
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
    let provider = config
        .provider
        .clone()
        .map(Provider::new)
        .transpose()
        .map_err(|e| WorkerError::Provider(e.to_string()))?;
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
    /// Woken when PostgreSQL announces a new job: idle loops poll at once.
    wake: Arc<Notify>,
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
        let wake = Arc::new(Notify::new());
        if let Db::Postgres(pool) = &state.db {
            tasks.push(tokio::spawn(listen_loop(
                pool.clone(),
                Arc::clone(&wake),
                stopped.clone(),
            )));
        }
        let ctx = Arc::new(Ctx {
            db: state.db.clone(),
            state,
            renderer,
            settings,
            node,
            scratch,
            webhooks,
            wake,
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

/// Listens for [`queue::NOTIFY_CHANNEL`] and wakes the idle loops. Only a hint: a lost
/// connection is reopened after a pause, and the loops keep polling meanwhile.
async fn listen_loop(pool: sqlx::PgPool, wake: Arc<Notify>, mut stop: watch::Receiver<bool>) {
    loop {
        match sqlx::postgres::PgListener::connect_with(&pool).await {
            Ok(mut listener) => match listener.listen(queue::NOTIFY_CHANNEL).await {
                Ok(()) => loop {
                    tokio::select! {
                        note = listener.recv() => match note {
                            Ok(_) => wake.notify_waiters(),
                            Err(err) => {
                                tracing::debug!(error = %err, "job notifications interrupted");
                                break;
                            }
                        },
                        _ = stop.changed() => return,
                    }
                },
                Err(err) => tracing::debug!(error = %err, "cannot listen for job notifications"),
            },
            Err(err) => tracing::debug!(error = %err, "cannot listen for job notifications"),
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
            _ = stop.changed() => return,
        }
    }
}

async fn rescue_loop(ctx: Arc<Ctx>, mut stop: watch::Receiver<bool>) {
    let mut tick = tokio::time::interval(ctx.settings.requeue_every);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        match crate::repo::sweep::expired_leases(&ctx.db).await {
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
                    () = ctx.wake.notified() => {}
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

/// Why a job did not produce its output.
#[derive(Debug)]
enum Failure {
    /// The renderer's verdict.
    Job(JobFailure),
    /// The database failed around the step: worth another attempt.
    Db(DbError),
    /// The job cannot be done and retrying will not help.
    Permanent(JobError),
    /// The step ran past the per-job time limit and was stopped (its ffmpeg killed).
    TimedOut(Duration),
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
            Failure::Db(_) | Failure::TimedOut(_) => true,
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
            Failure::TimedOut(_) => render_failed("the render took too long and was stopped"),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Job(e) => write!(f, "{e}"),
            Failure::Db(e) => write!(f, "database: {e}"),
            Failure::Permanent(e) => write!(f, "{}: {}", e.code, e.message),
            Failure::TimedOut(limit) => {
                write!(f, "the job ran past its {} s limit", limit.as_secs())
            }
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

/// What a finished step leaves to record.
#[derive(Debug)]
enum Done {
    /// Nothing to record but the job's completion; `branding`: make sure the complete
    /// video's branded render is queued.
    Nothing { branding: bool },
    /// Prepare stored the checked inputs.
    Prepared(Prepared),
    /// A clip was rendered, checked and stored.
    Clip { clip_id: Uuid, clip: StoredClip },
    /// The stitch stored the video.
    Stitched(StoredVideo),
    /// A combine stored the video.
    Combined(StoredVideo),
    /// The branded render was stored.
    Branded(StoredVideo),
}

/// How a job ended.
enum Outcome {
    Done(Done),
    Failed(Failure),
    /// Another worker may own the job now: touch nothing.
    LeaseLost,
    /// Shutting down and the grace period ran out: give the job back.
    HandBack,
    /// A webhook delivery attempt was made (or was not needed).
    Webhook(AttemptResult),
}

async fn run_job(ctx: &Ctx, worker_id: &str, job: Job, mut stop: watch::Receiver<bool>) {
    let started = std::time::Instant::now();
    tracing::info!(job = job.id, video = %job.video_id, kind = job.kind.as_str(), clip = job.clip_index, attempt = job.attempts, "job claimed");
    let (lost_tx, lost_rx) = tokio::sync::oneshot::channel::<()>();
    let heartbeat = {
        let db = ctx.db.clone();
        let (held, owner, lease, every) = (
            job.clone(),
            worker_id.to_owned(),
            ctx.settings.lease,
            ctx.settings.heartbeat,
        );
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.tick().await;
            loop {
                tick.tick().await;
                match queue::heartbeat(&db, &held, &owner, lease).await {
                    Ok(true) => {}
                    Ok(false) => {
                        let _ = lost_tx.send(());
                        return;
                    }
                    Err(err) => tracing::warn!(job = held.id, error = %err, "heartbeat failed"),
                }
            }
        })
    };
    // Aborts the heartbeat however this function is left, a panic included: a heartbeat that
    // outlived its job would keep a dead job's lease alive forever.
    let heartbeat = AbortOnDrop(heartbeat);
    let work_dir = ctx.scratch.job_dir(job.id, job.attempts);
    let grace = ctx.settings.grace;
    let limit = ctx.settings.job_time_limit;
    let work = guarded(job.id, async {
        // Dropping the step at the limit drops its runner guard, which kills its ffmpeg.
        tokio::time::timeout(limit, process(ctx, &job, &work_dir))
            .await
            .unwrap_or(Outcome::Failed(Failure::TimedOut(limit)))
    });
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

/// Does the job's work, dispatched on its kind. Never writes the final status: [`settle`]
/// does, under the lease.
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
        Ok(None) => return Outcome::Done(Done::Nothing { branding: false }),
        Err(err) => return Outcome::Failed(Failure::Db(err)),
    };
    let result = match job.kind {
        // A `render` job queued before the job graph existed starts the graph.
        JobKind::Render | JobKind::Prepare => prepare(ctx, &input, work_dir).await,
        JobKind::Clip => clip(ctx, job, &input, work_dir).await,
        JobKind::Stitch => stitch(ctx, job, &input, work_dir).await,
        JobKind::Combine => combine(ctx, &input, work_dir).await,
        JobKind::Branding => branded(ctx, &input, work_dir).await,
        JobKind::VideoWebhook | JobKind::BrandingWebhook => Ok(Done::Nothing { branding: false }),
    };
    match result {
        Ok(done) => Outcome::Done(done),
        Err(failure) => Outcome::Failed(failure),
    }
}

fn key_prefix(video_id: Uuid) -> String {
    format!("videos/{video_id}")
}

/// The prepare step: fetches and checks every input not rendered yet, once.
async fn prepare(
    ctx: &Ctx,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Done, Failure> {
    if input.video_key.is_some() {
        return Ok(Done::Nothing { branding: true });
    }
    let RenderSource::Create { request, clips } = &input.source else {
        return Err(Failure::Permanent(render_failed(
            "a combined video has no prepare step",
        )));
    };
    repo::start_video(&ctx.db, input.video_id).await?;
    let job = PrepareJob {
        key_prefix: key_prefix(input.video_id),
        images: clips
            .iter()
            .filter(|c| c.clip.clip_key.is_none())
            .map(|c| (c.position, c.clip.image_url.clone()))
            .collect(),
        audio_url: request.audio_url.clone(),
    };
    let target = observer::Target::Video {
        video: input.video_id,
        from: 0,
        span: graph::PREPARE_SHARE,
    };
    let (observer, writer) = DbObserver::spawn(ctx.db.clone(), target);
    let result = ctx.renderer.prepare(&job, work_dir, &observer).await;
    drop(observer);
    let _ = writer.await;
    result.map(Done::Prepared).map_err(Failure::Job)
}

/// The clip step: renders clip `job.clip_index` from its stored input.
async fn clip(
    ctx: &Ctx,
    job: &Job,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Done, Failure> {
    let missing = |what: &str| Failure::Permanent(render_failed(what));
    let index = job
        .clip_index
        .ok_or_else(|| missing("a clip job without a clip"))?;
    let RenderSource::Create { clips, .. } = &input.source else {
        return Err(missing("a combined video has no clip jobs"));
    };
    let wanted = clips
        .iter()
        .find(|c| c.position == index)
        .ok_or_else(|| missing("the clip is not part of its video"))?;
    let stored = graph::clip_input(&ctx.db, input.video_id, index)
        .await?
        .ok_or_else(|| missing("the clip is not part of its video"))?;
    if stored.clip_key.is_some() {
        // Recorded by an attempt whose completion was lost: nothing left to do.
        return Ok(Done::Nothing { branding: false });
    }
    let prepared = stored
        .input
        .ok_or_else(|| missing("the clip's input was not prepared"))?;
    let clip_job = ClipJob {
        key_prefix: key_prefix(input.video_id),
        index,
        token: Some(job.token.clone()),
        input: prepared,
        camera_motion: wanted.clip.camera_motion,
        effect: wanted.clip.vfx.as_ref().map(vfx_stage),
        orientation: input.orientation,
        resolution: input.resolution,
        engine: input.engine,
    };
    let target = observer::Target::Clip {
        video: input.video_id,
        clip: stored.clip_id,
    };
    let (observer, writer) = DbObserver::spawn(ctx.db.clone(), target);
    let result = ctx
        .renderer
        .render_clip(&clip_job, work_dir, &observer)
        .await;
    drop(observer);
    let _ = writer.await;
    let clip = result.map_err(Failure::Job)?;
    Ok(Done::Clip {
        clip_id: stored.clip_id,
        clip,
    })
}

/// The stitch step: joins the recorded clips in the database's order.
async fn stitch(
    ctx: &Ctx,
    job: &Job,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Done, Failure> {
    if input.video_key.is_some() {
        return Ok(Done::Nothing { branding: true });
    }
    let (keys, music) = graph::stitch_input(&ctx.db, input.video_id).await?;
    let clip_keys = keys
        .into_iter()
        .collect::<Option<Vec<String>>>()
        .ok_or_else(|| Failure::Permanent(render_failed("a clip of the video is missing")))?;
    let stitch_job = StitchJob {
        key_prefix: key_prefix(input.video_id),
        token: Some(job.token.clone()),
        clip_keys,
        music,
    };
    let target = observer::Target::Video {
        video: input.video_id,
        from: graph::STITCH_FROM,
        span: 4,
    };
    let (observer, writer) = DbObserver::spawn(ctx.db.clone(), target);
    let result = ctx
        .renderer
        .stitch_clips(&stitch_job, work_dir, &observer)
        .await;
    drop(observer);
    let _ = writer.await;
    result.map(Done::Stitched).map_err(Failure::Job)
}

/// Combines existing clips into the main video (one job).
async fn combine(
    ctx: &Ctx,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Done, Failure> {
    if input.video_key.is_some() {
        return Ok(Done::Nothing { branding: true });
    }
    let RenderSource::Combine { request, clip_keys } = &input.source else {
        return Err(Failure::Permanent(render_failed(
            "a created video is not combined",
        )));
    };
    repo::start_video(&ctx.db, input.video_id).await?;
    let target = observer::Target::Video {
        video: input.video_id,
        from: 0,
        span: 100,
    };
    let (observer, writer) = DbObserver::spawn(ctx.db.clone(), target);
    let job = CombineJob {
        key_prefix: key_prefix(input.video_id),
        clip_keys: clip_keys.clone(),
        orientation: input.orientation,
        resolution: input.resolution,
        audio_url: request.audio_url.clone(),
    };
    let result = ctx.renderer.combine(&job, work_dir, &observer).await;
    drop(observer);
    let _ = writer.await;
    result.map(Done::Combined).map_err(Failure::Job)
}

/// Renders the branded copy of a complete video.
async fn branded(
    ctx: &Ctx,
    input: &RenderInput,
    work_dir: &std::path::Path,
) -> Result<Done, Failure> {
    let Some(branding) = &input.branding else {
        return Ok(Done::Nothing { branding: false });
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
        DbObserver::spawn(ctx.db.clone(), observer::Target::Branding(input.video_id));
    let result = ctx.renderer.render_branded(&job, work_dir, &observer).await;
    drop(observer);
    let _ = writer.await;
    result.map(|b| Done::Branded(b.video)).map_err(Failure::Job)
}

/// Removes a stored file no record points at (the upload of a step whose lease was lost).
async fn remove_orphan(ctx: &Ctx, key: &str) {
    if remove_stored(ctx, key).await {
        tracing::info!(key, "removed an orphaned upload");
    }
}

/// Removes a stored file; `false` (logged) when the storage refused.
async fn remove_stored(ctx: &Ctx, key: &str) -> bool {
    let storage = Arc::clone(&ctx.state.storage);
    let owned = key.to_owned();
    let failed = match tokio::task::spawn_blocking(move || storage.delete(&owned)).await {
        Ok(Ok(())) => return true,
        Ok(Err(err)) => err.to_string(),
        Err(err) => err.to_string(),
    };
    tracing::warn!(key, error = %failed, "cannot remove a stored file");
    false
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
            queue::release(db, job, worker_id).await?;
            tracing::info!(job = job.id, "shutting down: job handed back to the queue");
            Ok(())
        }
        Outcome::Webhook(result) => settle_webhook(ctx, worker_id, job, &result).await,
        Outcome::Done(done) => settle_done(ctx, worker_id, job, done).await,
        Outcome::Failed(failure) => {
            if !queue::heartbeat(db, job, worker_id, ctx.settings.lease).await? {
                tracing::warn!(job = job.id, "lease lost before recording a failure");
                return Ok(());
            }
            if failure.is_transient() && job.attempts < job.max_attempts {
                let delay = queue::backoff(job.attempts);
                tracing::warn!(job = job.id, attempt = job.attempts, retry_in_secs = delay.as_secs(), error = %failure, "job failed; will retry");
                queue::fail(db, job, worker_id, &failure.to_string(), Some(delay)).await?;
                return Ok(());
            }
            tracing::warn!(job = job.id, video = %job.video_id, kind = job.kind.as_str(), error = %failure, "job failed");
            let error = failure.job_error();
            // One transaction: a crash can never leave the job failed and its record
            // `in_progress`, and a failed step cancels its video's queued siblings with it.
            // (A delivery whose database access keeps failing has no record: its event
            // stays pending.)
            if !repo::fail_job_for_good(db, job, worker_id, &failure.to_string(), &error).await? {
                tracing::warn!(job = job.id, "lease lost while recording a failure");
            }
            Ok(())
        }
    }
}

/// Records a finished step. The graph's steps record their result and complete their job in
/// one transaction that checks the lease token; a step whose lease was lost leaves an
/// upload nobody points at, which is removed.
async fn settle_done(ctx: &Ctx, worker_id: &str, job: &Job, done: Done) -> Result<(), DbError> {
    let db = &ctx.db;
    let kind = job.kind.as_str();
    match done {
        Done::Prepared(prepared) => {
            if !graph::finish_prepare(db, job, worker_id, &prepared).await? {
                tracing::warn!(job = job.id, "lease lost before prepare was recorded");
                return Ok(());
            }
        }
        Done::Clip { clip_id, clip } => {
            let motion = clip.motion.map(|m| m.as_camera_motion());
            match graph::finish_clip(db, job, worker_id, clip_id, &clip.key, motion).await? {
                ClipRecorded::Recorded { stitch_enqueued } => {
                    tracing::info!(job = job.id, video = %job.video_id, clip = clip.index, stitch_enqueued, "clip recorded");
                }
                ClipRecorded::AlreadyRecorded => remove_orphan(ctx, &clip.key).await,
                ClipRecorded::LeaseLost => {
                    tracing::warn!(
                        job = job.id,
                        clip = clip.index,
                        "lease lost before the clip was recorded; its upload is dropped"
                    );
                    remove_orphan(ctx, &clip.key).await;
                    return Ok(());
                }
            }
        }
        Done::Stitched(video) => {
            if !graph::finish_stitch(db, job, worker_id, &video.key).await? {
                tracing::warn!(
                    job = job.id,
                    "lease lost before the video was recorded; its upload is dropped"
                );
                remove_orphan(ctx, &video.key).await;
                return Ok(());
            }
            // The checked inputs served their purpose: nothing reads them once the video is
            // stitched (branding starts from the video). Best effort: a leftover is harmless.
            for key in graph::prepared_keys(db, job.video_id).await? {
                remove_stored(ctx, &key).await;
            }
        }
        Done::Combined(_) | Done::Branded(_) | Done::Nothing { .. } => {
            // A last heartbeat proves the lease is ours and keeps it for a whole lease more:
            // nobody can rescue the job while the result is written.
            if !queue::heartbeat(db, job, worker_id, ctx.settings.lease).await? {
                tracing::warn!(job = job.id, "lease lost before completion; result dropped");
                return Ok(());
            }
            match done {
                Done::Combined(video) => {
                    repo::complete_video(db, job.video_id, &video.key).await?;
                    enqueue_branding(db, job.video_id).await?;
                }
                Done::Branded(video) => {
                    repo::complete_branding(db, job.video_id, &video.key).await?;
                }
                // Already complete (an earlier attempt died before closing its job): make
                // sure the branded render was queued.
                Done::Nothing { branding: true } => enqueue_branding(db, job.video_id).await?,
                _ => {}
            }
            queue::complete(db, job, worker_id).await?;
        }
    }
    tracing::info!(job = job.id, video = %job.video_id, kind, "job complete");
    Ok(())
}

/// Records a delivery attempt and completes its job, or puts it back for the schedule's
/// next delay. One log line per attempt, with the video id and the `webhook-id`.
async fn settle_webhook(
    ctx: &Ctx,
    worker_id: &str,
    job: &Job,
    result: &AttemptResult,
) -> Result<(), DbError> {
    let db = &ctx.db;
    let schedule = &ctx.state.config.webhook_retry_schedule;
    let Some((attempt, verdict)) =
        webhooks::record_attempt(db, job.video_id, job.kind, result, schedule).await?
    else {
        queue::complete(db, job, worker_id).await?;
        return Ok(());
    };
    let message_id = match result {
        AttemptResult::Answered { message_id, .. }
        | AttemptResult::NoAnswer { message_id, .. }
        | AttemptResult::Unsendable { message_id, .. } => message_id.as_str(),
        AttemptResult::Settled => "",
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
                job,
                worker_id,
                verdict.error.as_deref().unwrap_or(""),
                Some(delay),
            )
            .await?;
        }
        None => {
            queue::complete(db, job, worker_id).await?;
        }
    }
    Ok(())
}

/// Queues the branded render of a complete video that asked for one, unless already queued.
async fn enqueue_branding(db: &Db, video_id: Uuid) -> Result<(), DbError> {
    let mut tx = db.begin().await?;
    graph::enqueue_branding_in(&mut tx, video_id).await?;
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
            guarded(8, async {
                Outcome::Done(Done::Nothing { branding: false })
            })
            .await,
            Outcome::Done(Done::Nothing { branding: false })
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
