//! A kind of job added in a few lines, outside the server's code: the worker's runner claims
//! it, runs it, settles it in one transaction (its follow-up job queued there) and retries
//! it on a transient failure, on SQLite and PostgreSQL. What `docs/ARCHITECTURE.md` promises
//! a new kind.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use common::{TestApp, create_body};
use stillreel_server::Services;
use stillreel_server::db::{DbError, Tx};
use stillreel_server::queue::{self, ClaimRank, Job, JobKind, NewJob};
use stillreel_server::worker::{self, Failure, JobCtx, Kind, Kinds, Settle, WorkerSettings};
use uuid::Uuid;

both_backends!(a_new_kind_is_claimed_run_settled_and_retried);

/// The throwaway kind: fails its first two attempts as a database hiccup would, then hands
/// its attempt number to `record`, which queues an [`Echoed`] job.
struct Echo {
    runs: Arc<AtomicU32>,
    /// The attempt `record` was handed.
    recorded: Arc<AtomicI32>,
}

impl Kind for Echo {
    const KIND: JobKind = JobKind::new("echo", ClaimRank::Finishing);
    type Output = i32;

    fn retry_in(&self, job: &Job, failure: &Failure) -> Option<Duration> {
        (failure.is_transient() && job.attempts < job.max_attempts)
            .then_some(Duration::from_millis(50))
    }

    async fn run(&self, _: &JobCtx<'_>, job: &Job) -> Result<i32, Failure> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        if job.attempts < 3 {
            return Err(Failure::Db(DbError::Sqlx(sqlx::Error::PoolTimedOut)));
        }
        Ok(job.attempts)
    }

    async fn record(
        &self,
        _: &mut Tx,
        _: &Services,
        job: &Job,
        attempt: i32,
    ) -> Result<Settle, DbError> {
        self.recorded.store(attempt, Ordering::SeqCst);
        Ok(Settle::then([NewJob::new(job.video_id, Echoed::KIND)]))
    }
}

/// The follow-up: counts its runs.
struct Echoed {
    runs: Arc<AtomicU32>,
}

impl Kind for Echoed {
    const KIND: JobKind = JobKind::new("echoed", ClaimRank::Middle);
    type Output = ();

    async fn run(&self, _: &JobCtx<'_>, _: &Job) -> Result<(), Failure> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }

    async fn record(&self, _: &mut Tx, _: &Services, _: &Job, (): ()) -> Result<Settle, DbError> {
        Ok(Settle::done())
    }
}

async fn a_new_kind_is_claimed_run_settled_and_retried(app: TestApp) {
    let key = app.account().await.api_key;
    let r = app
        .post("/api/v1/create_video", &key, &create_body(1))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let video = Uuid::parse_str(r.json["uuid"].as_str().expect("uuid")).expect("uuid");
    // Only the throwaway kinds run here: the video's own prepare is claimed first and
    // finished by hand, so it cannot stand in the way.
    let prepare = queue::claim(app.db(), "setup", Duration::from_secs(30))
        .await
        .expect("claim")
        .expect("the video's prepare");
    assert!(
        queue::complete(app.db(), &prepare, "setup")
            .await
            .expect("complete")
    );
    let mut tx = app.db().begin().await.expect("tx");
    queue::enqueue(&mut tx, video, Echo::KIND)
        .await
        .expect("enqueue");
    tx.commit().await.expect("commit");

    let (echo_runs, echoed_runs) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let recorded = Arc::new(AtomicI32::new(0));
    let kinds = Kinds::new()
        .with(Echo {
            runs: Arc::clone(&echo_runs),
            recorded: Arc::clone(&recorded),
        })
        .with(Echoed {
            runs: Arc::clone(&echoed_runs),
        });
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 2;
    settings.idle_poll = Duration::from_millis(50);
    let renderer = worker::build_renderer(&app.state).expect("renderer");
    let workers = worker::start_with(app.state.services.clone(), renderer, settings, kinds);

    let started = Instant::now();
    let jobs = loop {
        let jobs = queue::graph_of_video(app.db(), video).await.expect("jobs");
        if jobs
            .iter()
            .any(|j| j.kind == Echoed::KIND && j.state == "done")
        {
            break jobs;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the new kinds did not run: {jobs:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    workers.shutdown().await;

    let echo = jobs
        .iter()
        .find(|j| j.kind == Echo::KIND)
        .expect("echo job");
    assert_eq!(echo.state, "done");
    assert_eq!(
        echo.attempts, 3,
        "two transient failures, retried, then done"
    );
    assert_eq!(echo.kind.claim_rank(), ClaimRank::Finishing, "rank stored");
    assert_eq!(echo_runs.load(Ordering::SeqCst), 3);
    assert_eq!(
        recorded.load(Ordering::SeqCst),
        3,
        "record got the output of the run that succeeded"
    );
    let echoed = jobs
        .iter()
        .find(|j| j.kind == Echoed::KIND)
        .expect("follow-up");
    assert_eq!((echoed.state.as_str(), echoed.attempts), ("done", 1));
    assert_eq!(echoed.kind.claim_rank(), ClaimRank::Middle);
    assert_eq!(echoed_runs.load(Ordering::SeqCst), 1);
}
