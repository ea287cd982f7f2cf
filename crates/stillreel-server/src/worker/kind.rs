//! What a kind of job is: the [`Kind`] trait every file of `kinds/` implements, the
//! [`Settle`] its `record` step returns, and [`Kinds`], the list a worker runs.
//!
//! The runner (`runner.rs`) does the rest the same way for every kind: claim, heartbeat,
//! `run` outside any transaction, then one transaction that completes the job by its lease
//! token, calls `record`, queues the follow-up jobs and commits.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::time::Duration;

use stillreel_core::JobError;
use stillreel_render::{Fetcher, Renderer};

use super::failure::Failure;
use crate::db::{Db, DbError, Tx};
use crate::queue::{self, Job, JobKind, NewJob};
use crate::state::Services;

/// What a kind's [`Kind::run`] works with.
#[derive(Debug, Clone, Copy)]
pub struct JobCtx<'a> {
    /// The services (database, storage, configuration, templates, metrics).
    pub state: &'a Services,
    pub renderer: &'a Renderer,
    /// Sends webhook deliveries under the media fetcher's address rules and allow-list.
    pub webhooks: &'a Fetcher,
    /// This attempt's scratch folder (removed after the job).
    pub work_dir: &'a Path,
}

impl JobCtx<'_> {
    pub fn db(&self) -> &Db {
        &self.state.db
    }
}

/// What a finished job leaves behind once recorded: the jobs to queue next (built by the kind
/// from what its `record` found: the clips left, the last clip, a completed video), or a
/// retry instead of the completion, and stored files nothing points at any more.
#[derive(Debug, Default)]
pub struct Settle {
    /// Queued in the completing transaction (a prepare's clips, the last clip's stitch).
    pub next: Vec<NewJob>,
    /// Put the job back to run again after this delay (with this note as its last error)
    /// instead of completing it: a webhook delivery the receiver refused.
    pub retry: Option<(Duration, String)>,
    /// Storage keys removed after the commit (best effort).
    pub remove: Vec<String>,
}

impl Settle {
    /// Completed, with nothing to queue.
    pub fn done() -> Self {
        Settle::default()
    }

    /// Completed, queueing `next`.
    pub fn then(next: impl IntoIterator<Item = NewJob>) -> Self {
        Settle {
            next: next.into_iter().collect(),
            ..Settle::default()
        }
    }
}

/// One kind of job: one file in `kinds/` (its [`JobKind`], this trait, and the jobs that
/// follow it), registered with one line in `kinds/mod.rs`.
///
/// `run` does the work, outside any transaction, and may run more than once for one job (a
/// lost lease, a crash): it must be idempotent. `record` writes the result inside the
/// transaction that completes the job; it runs only while the claim's lease token still
/// matches, so a worker that lost its job records nothing.
pub trait Kind: Send + Sync + 'static {
    /// The stored name and the claim rank (written into the job row when it is queued),
    /// declared in the kind's own file.
    const KIND: JobKind;
    /// Older stored names this kind runs too.
    const ALIASES: &'static [&'static str] = &[];

    /// What `run` hands to `record`.
    type Output: Send + 'static;

    /// The wall time one attempt may take before it is stopped and retried (`default`: the
    /// worker's `job_time_limit`).
    fn time_limit(&self, default: Duration) -> Duration {
        default
    }

    /// When a failed attempt runs again: `None` fails the job for good. By default a
    /// transient failure is retried with exponential back-off while attempts remain.
    fn retry_in(&self, job: &Job, failure: &Failure) -> Option<Duration> {
        (failure.is_transient() && job.attempts < job.max_attempts)
            .then(|| queue::backoff(job.attempts))
    }

    /// Does the work.
    fn run(
        &self,
        ctx: &JobCtx<'_>,
        job: &Job,
    ) -> impl Future<Output = Result<Self::Output, Failure>> + Send;

    /// Records `output` inside the transaction that has just completed `job`.
    fn record(
        &self,
        tx: &mut Tx,
        state: &Services,
        job: &Job,
        output: Self::Output,
    ) -> impl Future<Output = Result<Settle, DbError>> + Send;

    /// What failing `job` for good does to its records, inside the transaction that fails it
    /// (fail the video, cancel its siblings). Answers the stored files to remove once that
    /// transaction has committed (a failed video's checked inputs). By default nothing.
    fn fail(
        &self,
        tx: &mut Tx,
        job: &Job,
        error: &JobError,
    ) -> impl Future<Output = Result<Vec<String>, DbError>> + Send {
        let _ = (tx, job, error);
        async { Ok(Vec::new()) }
    }

    /// The stored files `output` points at: removed when its job's lease was lost before
    /// they were recorded (nothing would ever point at them).
    fn uploads(&self, output: &Self::Output) -> Vec<String> {
        let _ = output;
        Vec::new()
    }
}

pub(super) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A [`Kind`] behind a pointer, so one list holds every kind.
pub(super) trait AnyKind: Send + Sync {
    fn kind(&self) -> JobKind;
    fn answers_to(&self, name: &str) -> bool;
    fn time_limit(&self, default: Duration) -> Duration;
    fn retry_in(&self, job: &Job, failure: &Failure) -> Option<Duration>;
    fn run<'a>(
        &'a self,
        ctx: &'a JobCtx<'a>,
        job: &'a Job,
    ) -> BoxFuture<'a, Result<Box<dyn Ran<'a> + 'a>, Failure>>;
    fn fail<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: &'a Job,
        error: &'a JobError,
    ) -> BoxFuture<'a, Result<Vec<String>, DbError>>;
}

/// The output of a run, with the kind that records it.
pub(super) trait Ran<'k>: Send {
    fn uploads(&self) -> Vec<String>;
    fn record<'t>(
        self: Box<Self>,
        tx: &'t mut Tx,
        state: &'t Services,
        job: &'t Job,
    ) -> BoxFuture<'t, Result<Settle, DbError>>
    where
        'k: 't;
}

pub(super) struct Output<'k, K: Kind> {
    pub(super) kind: &'k K,
    pub(super) output: K::Output,
}

impl<'k, K: Kind> Ran<'k> for Output<'k, K> {
    fn uploads(&self) -> Vec<String> {
        self.kind.uploads(&self.output)
    }

    fn record<'t>(
        self: Box<Self>,
        tx: &'t mut Tx,
        state: &'t Services,
        job: &'t Job,
    ) -> BoxFuture<'t, Result<Settle, DbError>>
    where
        'k: 't,
    {
        let Output { kind, output } = *self;
        Box::pin(kind.record(tx, state, job, output))
    }
}

impl<K: Kind> AnyKind for K {
    fn kind(&self) -> JobKind {
        K::KIND
    }

    fn answers_to(&self, name: &str) -> bool {
        K::KIND.as_str() == name || K::ALIASES.contains(&name)
    }

    fn time_limit(&self, default: Duration) -> Duration {
        Kind::time_limit(self, default)
    }

    fn retry_in(&self, job: &Job, failure: &Failure) -> Option<Duration> {
        Kind::retry_in(self, job, failure)
    }

    fn run<'a>(
        &'a self,
        ctx: &'a JobCtx<'a>,
        job: &'a Job,
    ) -> BoxFuture<'a, Result<Box<dyn Ran<'a> + 'a>, Failure>> {
        Box::pin(async move {
            let output = Kind::run(self, ctx, job).await?;
            Ok(Box::new(Output { kind: self, output }) as Box<dyn Ran<'a> + 'a>)
        })
    }

    fn fail<'a>(
        &'a self,
        tx: &'a mut Tx,
        job: &'a Job,
        error: &'a JobError,
    ) -> BoxFuture<'a, Result<Vec<String>, DbError>> {
        Box::pin(Kind::fail(self, tx, job, error))
    }
}

/// The kinds a worker runs (`kinds/mod.rs` lists the service's own).
#[derive(Default)]
pub struct Kinds {
    kinds: Vec<Box<dyn AnyKind>>,
}

impl std::fmt::Debug for Kinds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.kinds.iter().map(|k| k.kind().as_str()))
            .finish()
    }
}

impl Kinds {
    pub fn new() -> Self {
        Kinds::default()
    }

    /// These kinds and `kind` (which replaces a kind of the same name).
    #[must_use]
    pub fn with<K: Kind>(mut self, kind: K) -> Self {
        self.kinds.retain(|k| k.kind() != K::KIND);
        self.kinds.push(Box::new(kind));
        self
    }

    /// The kind that runs jobs stored as `kind` (its name or an alias).
    pub(super) fn get(&self, kind: JobKind) -> Option<&dyn AnyKind> {
        self.kinds
            .iter()
            .find(|k| k.answers_to(kind.as_str()))
            .map(|k| &**k)
    }

    /// The kind that runs jobs stored as `stored` (itself, or the kind it is an alias of).
    pub fn kind_for(&self, stored: JobKind) -> Option<JobKind> {
        self.get(stored).map(AnyKind::kind)
    }
}
