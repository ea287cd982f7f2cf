//! The render queue on both databases: claim, lease, heartbeat, complete/fail, expiry,
//! retries, and concurrent claimers that never share a job.

mod common;

use std::collections::HashSet;
use std::time::Duration;

use common::{TestApp, create_body};
use stillreel_server::queue::{self, JobKind};
use stillreel_server::worker::kinds;
use uuid::Uuid;

both_backends!(
    claim_complete_and_lease_checks,
    expired_leases_are_requeued_then_failed,
    fail_with_and_without_retry,
    concurrent_claimers_never_share_a_job,
    release_hands_back_without_counting_the_attempt,
    claims_go_round_the_accounts_under_a_cap,
    one_slot_takes_the_accounts_in_turn,
    a_finishing_job_goes_first_only_once_it_may_run,
    each_lane_claims_only_its_own_kinds,
    concurrent_fair_claimers_never_exceed_the_cap,
    concurrent_claimers_fill_every_account_to_its_cap_and_no_further,
    claimers_that_complete_as_they_go_drain_the_queue_without_an_error,
);

/// PostgreSQL only: the per-account job counts its claim reads are kept by triggers there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_job_counts_follow_every_state_change_on_postgres() {
    if let Some(app) = TestApp::spawn_with(common::Backend::Postgres, |_| {}).await {
        account_job_counts_follow_every_state_change(app).await;
    }
}

/// PostgreSQL only: a deep queue spread over many accounts, drained by 32 claimers that
/// complete as they go, as in the claims benchmark. There (release build, a connection per
/// claimer) a claim once failed with "deadlock detected"; this debug-build test did not
/// reproduce that race before its fix, but checks the drain stays exact and error-free.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_queue_drains_under_32_claimers_without_a_deadlock_on_postgres() {
    let Some(app) = TestApp::spawn_with(common::Backend::Postgres, |_| {}).await else {
        return;
    };
    let stillreel_server::Db::Postgres(pool) = app.db() else {
        panic!("a PostgreSQL test got another database");
    };
    let mut videos = Vec::new();
    for _ in 0..32 {
        let acct = app.account().await;
        videos.push(new_video(&app, &acct.api_key).await);
    }
    // 40 more jobs per video, straight into the table (the API would take minutes).
    sqlx::query(
        "INSERT INTO jobs (video_id, kind, claim_rank, state, run_after, created_at, updated_at)
         SELECT ($1::uuid[])[1 + (g % cardinality($1::uuid[]))], 'prepare', 2, 'queued', 0, 0, 0
         FROM generate_series(0, 1279) AS g",
    )
    .bind(&videos)
    .execute(pool)
    .await
    .expect("insert jobs");
    let total: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE state = 'queued'")
        .fetch_one(pool)
        .await
        .expect("count");
    let done = drain(app.db(), 32).await.len();
    assert_eq!(
        i64::try_from(done).expect("count"),
        total,
        "every queued job done exactly once"
    );
}

const LEASE: Duration = Duration::from_secs(30);

/// Runs `claimers` claimers that claim (cap 2) and complete at once until the queue stays
/// empty for five tries in a row (a claimer that finds nothing may only be early: the rest
/// held by claims in flight), all starting at one barrier. Returns the video of every job
/// completed; any failed claim fails the test.
async fn drain(db: &stillreel_server::Db, claimers: usize) -> Vec<Uuid> {
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(claimers));
    let tasks: Vec<_> = (0..claimers)
        .map(|n| {
            let db = db.clone();
            let barrier = std::sync::Arc::clone(&barrier);
            tokio::spawn(async move {
                barrier.wait().await;
                let worker = format!("w{n}");
                let mut done = Vec::new();
                let mut idle = 0;
                while idle < 5 {
                    match queue::claim_fair(&db, &worker, LEASE, 2).await {
                        Ok(Some(job)) => {
                            idle = 0;
                            assert!(queue::complete(&db, &job, &worker).await.expect("complete"));
                            done.push(job.video_id);
                        }
                        Ok(None) => {
                            idle += 1;
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                        Err(err) => panic!("claim failed: {err}"),
                    }
                }
                done
            })
        })
        .collect();
    let mut done = Vec::new();
    for task in tasks {
        done.extend(task.await.expect("a claimer failed"));
    }
    done
}

async fn new_video(app: &TestApp, key: &str) -> Uuid {
    let r = app.post("/api/v1/create_video", key, &create_body(1)).await;
    assert_eq!(r.status, 200, "{}", r.json);
    r.json["uuid"]
        .as_str()
        .and_then(|s| Uuid::parse_str(s).ok())
        .expect("uuid")
}

async fn state_of(app: &TestApp, video: Uuid) -> String {
    queue::jobs_of_video(app.db(), video).await.expect("jobs")[0]
        .1
        .clone()
}

async fn claim_complete_and_lease_checks(app: TestApp) {
    let acct = app.account().await;
    let first = new_video(&app, &acct.api_key).await;
    let second = new_video(&app, &acct.api_key).await;
    let db = app.db();

    let job = queue::claim(db, "w1", LEASE)
        .await
        .expect("claim")
        .expect("a job");
    assert_eq!(job.video_id, first, "oldest first");
    assert_eq!(job.kind, kinds::PREPARE);
    assert_eq!(job.attempts, 1);
    assert!(job.lease_expires_at > stillreel_server::db::now_ms());
    let other = queue::claim(db, "w2", LEASE)
        .await
        .expect("claim")
        .expect("a job");
    assert_eq!(other.video_id, second);
    assert!(
        queue::claim(db, "w3", LEASE)
            .await
            .expect("claim")
            .is_none(),
        "nothing left"
    );

    assert!(queue::heartbeat(db, &job, "w1", LEASE).await.expect("hb"));
    assert!(
        !queue::heartbeat(db, &job, "w2", LEASE).await.expect("hb"),
        "not w2's job"
    );
    assert!(
        !queue::complete(db, &job, "w2",).await.expect("complete"),
        "only the holder completes"
    );
    assert!(queue::complete(db, &job, "w1").await.expect("complete"));
    assert!(
        !queue::complete(db, &job, "w1").await.expect("complete"),
        "once"
    );
    assert!(
        !queue::heartbeat(db, &job, "w1", LEASE).await.expect("hb"),
        "done jobs have no lease"
    );
    assert_eq!(state_of(&app, first).await, "done");
    assert_eq!(state_of(&app, second).await, "running");

    let depth = queue::depth_by_state(db).await.expect("depth");
    assert_eq!(
        depth,
        vec![
            ("queued", 0),
            ("running", 1),
            ("done", 1),
            ("failed", 0),
            ("cancelled", 0)
        ]
    );

    // A branding job enqueued later by the worker, in its own transaction.
    let mut tx = db.begin().await.expect("tx");
    queue::enqueue(&mut tx, first, kinds::BRANDING)
        .await
        .expect("enqueue");
    tx.commit().await.expect("commit");
    let branding = queue::claim(db, "w1", LEASE)
        .await
        .expect("claim")
        .expect("job");
    assert_eq!((branding.video_id, branding.kind), (first, kinds::BRANDING));
}

async fn expired_leases_are_requeued_then_failed(app: TestApp) {
    let acct = app.account().await;
    let video = new_video(&app, &acct.api_key).await;
    let db = app.db();
    // Long enough that a loaded machine does not expire it between the claim and the check.
    let short = Duration::from_millis(400);
    for attempt in 1..=3 {
        let job = queue::claim(db, "dying", short)
            .await
            .expect("claim")
            .expect("job");
        assert_eq!(job.attempts, attempt);
        assert_eq!(
            stillreel_server::repo::sweep::expired_leases(db)
                .await
                .expect("requeue"),
            0,
            "lease still valid"
        );
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert!(
            !queue::heartbeat(db, &job, "dying", short)
                .await
                .expect("hb"),
            "expired lease cannot be renewed"
        );
        assert_eq!(
            stillreel_server::repo::sweep::expired_leases(db)
                .await
                .expect("requeue"),
            1
        );
        assert!(
            !queue::complete(db, &job, "dying").await.expect("complete"),
            "lost lease"
        );
    }
    // Three attempts used (max_attempts = 3): the last expiry failed it for good.
    assert_eq!(state_of(&app, video).await, "failed");
    let jobs = queue::jobs_of_video(db, video).await.expect("jobs");
    assert_eq!(jobs[0].2.as_deref(), Some("lease expired"));
    assert!(queue::claim(db, "w", LEASE).await.expect("claim").is_none());
}

async fn fail_with_and_without_retry(app: TestApp) {
    let acct = app.account().await;
    let retried = new_video(&app, &acct.api_key).await;
    let db = app.db();
    let job = queue::claim(db, "w", LEASE)
        .await
        .expect("claim")
        .expect("job");
    assert!(
        !queue::fail(db, &job, "intruder", "x", None)
            .await
            .expect("fail")
    );
    assert!(
        queue::fail(
            db,
            &job,
            "w",
            "ffmpeg crashed",
            Some(Duration::from_secs(3600))
        )
        .await
        .expect("fail")
    );
    assert_eq!(state_of(&app, retried).await, "queued");
    assert!(
        queue::claim(db, "w", LEASE).await.expect("claim").is_none(),
        "not runnable before run_after"
    );
    assert!(
        queue::fail(db, &job, "w", "again", None)
            .await
            .is_ok_and(|changed| !changed),
        "not running anymore"
    );

    let fatal = new_video(&app, &acct.api_key).await;
    let job = queue::claim(db, "w", LEASE)
        .await
        .expect("claim")
        .expect("job");
    assert_eq!(job.video_id, fatal);
    assert!(
        queue::fail(db, &job, "w", "media_unsupported", None)
            .await
            .expect("fail")
    );
    assert_eq!(state_of(&app, fatal).await, "failed");
    let jobs = queue::jobs_of_video(db, fatal).await.expect("jobs");
    assert_eq!(jobs[0].2.as_deref(), Some("media_unsupported"));

    // Retry with no delay: runnable again at once, attempts counting up to the maximum.
    let video = new_video(&app, &acct.api_key).await;
    for attempt in 1..=3 {
        let job = queue::claim(db, "w", LEASE)
            .await
            .expect("claim")
            .expect("job");
        assert_eq!((job.video_id, job.attempts), (video, attempt));
        assert!(
            queue::fail(db, &job, "w", "flaky", Some(Duration::ZERO))
                .await
                .expect("fail")
        );
    }
    assert_eq!(state_of(&app, video).await, "failed", "attempts exhausted");
}

async fn concurrent_claimers_never_share_a_job(app: TestApp) {
    let acct = app.account().await;
    let mut videos = HashSet::new();
    for _ in 0..24 {
        videos.insert(new_video(&app, &acct.api_key).await);
    }
    let mut workers = Vec::new();
    for w in 0..4 {
        let db = app.db().clone();
        workers.push(tokio::spawn(async move {
            let mut got = Vec::new();
            while let Some(job) = queue::claim(&db, &format!("w{w}"), LEASE)
                .await
                .expect("claim")
            {
                got.push(job.video_id);
                assert!(
                    queue::complete(&db, &job, &format!("w{w}"))
                        .await
                        .expect("complete")
                );
            }
            got
        }));
    }
    let mut claimed = Vec::new();
    for w in workers {
        claimed.extend(w.await.expect("worker"));
    }
    assert_eq!(claimed.len(), 24, "every job claimed exactly once");
    assert_eq!(claimed.iter().copied().collect::<HashSet<_>>(), videos);
}

async fn release_hands_back_without_counting_the_attempt(app: TestApp) {
    let acct = app.account().await;
    let video = new_video(&app, &acct.api_key).await;
    let db = app.db();
    let job = queue::claim(db, "w1", LEASE)
        .await
        .expect("claim")
        .expect("a job");
    assert_eq!(job.attempts, 1);
    assert!(
        !queue::release(db, &job, "w2").await.expect("release"),
        "only the holder releases"
    );
    assert!(queue::release(db, &job, "w1").await.expect("release"));
    assert_eq!(state_of(&app, video).await, "queued");
    assert!(
        !queue::release(db, &job, "w1").await.expect("release"),
        "a released job is no longer held"
    );
    let again = queue::claim(db, "w2", LEASE)
        .await
        .expect("claim")
        .expect("the released job");
    assert_eq!(again.id, job.id);
    assert_eq!(again.attempts, 1, "the released attempt did not count");
}

/// PostgreSQL over TLS (rustls): `sslmode=require` encrypts the connection, as the server's
/// `pg_stat_ssl` confirms, and `sslmode=verify-full` refuses a certificate no trusted CA signed
/// (Debian's PostgreSQL serves its self-signed "snakeoil" certificate).
#[tokio::test]
async fn postgres_over_tls() {
    let Some(test_db) = common::TestDb::new(common::Backend::Postgres).await else {
        return;
    };
    let stillreel_server::config::DatabaseConfig::Postgres(url) = &test_db.config else {
        panic!("a PostgreSQL test database")
    };
    let with = |mode: &str| {
        let joint = if url.contains('?') { '&' } else { '?' };
        stillreel_server::config::DatabaseConfig::Postgres(format!("{url}{joint}sslmode={mode}"))
    };
    let db = stillreel_server::Db::connect(&with("require"))
        .await
        .expect("connect with sslmode=require");
    let stillreel_server::Db::Postgres(pool) = &db else {
        panic!("a PostgreSQL pool")
    };
    let (ssl, version): (bool, Option<String>) =
        sqlx::query_as("SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            .fetch_one(pool)
            .await
            .expect("pg_stat_ssl");
    assert!(ssl, "the connection is encrypted");
    assert!(
        version.as_deref().is_some_and(|v| v.starts_with("TLSv1.")),
        "{version:?}"
    );
    db.close().await;
    let refused = stillreel_server::Db::connect(&with("verify-full"))
        .await
        .expect_err("a self-signed certificate is not trusted");
    let message = refused.to_string().to_lowercase();
    assert!(message.contains("certificate"), "{message}");
}

/// Three videos of one account queued first, then one video of another account.
async fn busy_and_lone(app: &TestApp) -> (Vec<Uuid>, Uuid) {
    let busy = app.account().await;
    let other = app.account().await;
    let mut busy_videos = Vec::new();
    for _ in 0..3 {
        busy_videos.push(new_video(app, &busy.api_key).await);
    }
    (busy_videos, new_video(app, &other.api_key).await)
}

/// Three videos of one account queued first, then one of another: with a cap of one
/// running job per account the second worker takes the other account's video, and the
/// first account's next video waits until its running one ends.
async fn claims_go_round_the_accounts_under_a_cap(app: TestApp) {
    let (busy_videos, lone) = busy_and_lone(&app).await;
    let db = app.db();
    let claim = |worker: &'static str, cap: usize| async move {
        queue::claim_fair(db, worker, LEASE, cap)
            .await
            .expect("claim")
    };

    let first = claim("w1", 1).await.expect("a job");
    assert_eq!(first.video_id, busy_videos[0], "oldest first");
    let second = claim("w2", 1).await.expect("a job");
    assert_eq!(
        second.video_id, lone,
        "the other account, not the busy one's second"
    );
    assert!(claim("w3", 1).await.is_none(), "both accounts at their cap");
    assert!(queue::complete(db, &first, "w1").await.expect("complete"));
    let third = claim("w1", 1).await.expect("a job");
    assert_eq!(third.video_id, busy_videos[1]);

    // With a cap of two, the account with fewer running still goes first.
    let late = app.account().await;
    let late_video = new_video(&app, &late.api_key).await;
    let fourth = claim("w3", 2).await.expect("a job");
    assert_eq!(
        fourth.video_id, late_video,
        "an account with nothing running before one with a job running"
    );
    let fifth = claim("w4", 2).await.expect("a job");
    assert_eq!(
        fifth.video_id, busy_videos[2],
        "then the busy account, under two"
    );

    // Plain `claim` has no cap.
    assert!(
        queue::claim(db, "w5", LEASE)
            .await
            .expect("claim")
            .is_none()
    );
}

/// One slot, claims in turn: the account served longest ago goes first, so an account that
/// queued three videos first does not get all three turns before another account's one.
async fn one_slot_takes_the_accounts_in_turn(app: TestApp) {
    let (busy_videos, lone) = busy_and_lone(&app).await;
    let db = app.db();
    let mut order = Vec::new();
    while let Some(job) = queue::claim_fair(db, "solo", LEASE, 1)
        .await
        .expect("claim")
    {
        order.push(job.video_id);
        assert!(queue::complete(db, &job, "solo").await.expect("complete"));
    }
    assert_eq!(
        order,
        vec![busy_videos[0], lone, busy_videos[1], busy_videos[2]],
        "round robin: busy, other, then the rest of busy"
    );
}

/// Runs one statement on either backend; the rows it changed.
async fn exec(db: &stillreel_server::Db, sql: String) -> u64 {
    let sql = sqlx::AssertSqlSafe(sql);
    match db {
        stillreel_server::Db::Sqlite { write, .. } => sqlx::query(sql)
            .execute(write)
            .await
            .map(|r| r.rows_affected()),
        stillreel_server::Db::Postgres(pool) => sqlx::query(sql)
            .execute(pool)
            .await
            .map(|r| r.rows_affected()),
    }
    .expect("statement")
}

/// A finishing job (claim rank 0: a stitch) puts its account ahead of accounts whose turn
/// comes first, but only once it may run: one waiting out a retry delay gives no precedence
/// (PostgreSQL keeps a count of queued finishing jobs per account and must still check each
/// one's `run_after`).
async fn a_finishing_job_goes_first_only_once_it_may_run(app: TestApp) {
    let a = app.account().await;
    let b = app.account().await;
    let c = app.account().await;
    let a1 = new_video(&app, &a.api_key).await;
    new_video(&app, &a.api_key).await;
    let b1 = new_video(&app, &b.api_key).await;
    let c1 = new_video(&app, &c.api_key).await;
    let db = app.db();
    let claim = || async {
        queue::claim_fair(db, "solo", LEASE, 1)
            .await
            .expect("claim")
            .expect("a job")
    };
    let first = claim().await;
    assert_eq!(first.video_id, a1, "oldest first");
    assert!(queue::complete(db, &first, "solo").await.expect("complete"));
    // a1's stitch, waiting an hour (as after a failed attempt).
    let later = stillreel_server::db::now_ms() + 3_600_000;
    assert_eq!(
        exec(
            db,
            format!(
                "INSERT INTO jobs (video_id, kind, claim_rank, makes, state, run_after, created_at, updated_at)
                 SELECT video_id, 'stitch', 0, 'video', 'queued', {later}, 0, 0 FROM jobs WHERE id = {}",
                first.id
            )
        )
        .await,
        1
    );
    let second = claim().await;
    assert_eq!(
        second.video_id, b1,
        "a waiting stitch does not jump the turn"
    );
    assert!(
        queue::complete(db, &second, "solo")
            .await
            .expect("complete")
    );
    assert_eq!(
        exec(
            db,
            "UPDATE jobs SET run_after = 0 WHERE kind = 'stitch'".to_owned()
        )
        .await,
        1
    );
    let third = claim().await;
    assert_eq!(
        (third.video_id, third.kind),
        (a1, kinds::STITCH),
        "a runnable stitch goes before c's turn"
    );
    assert!(queue::complete(db, &third, "solo").await.expect("complete"));
    let fourth = claim().await;
    assert_eq!(fourth.video_id, c1, "then the turns again");
}

/// A kind declares its lane in its own definition (one line) and the claim reads the lane
/// stored with the job: a throwaway model-lane kind is claimed only by the model lane's loops,
/// and the render lane's loops take everything else.
async fn each_lane_claims_only_its_own_kinds(app: TestApp) {
    const PONDER: JobKind =
        JobKind::new("ponder", queue::ClaimRank::Finishing).in_lane(queue::Lane::Model);
    let key = app.account().await.api_key;
    let video = new_video(&app, &key).await;
    let db = app.db();
    let mut tx = db.begin().await.expect("begin");
    queue::enqueue_jobs(&mut tx, &[queue::NewJob::new(video, PONDER)])
        .await
        .expect("enqueue");
    tx.commit().await.expect("commit");
    let claim = |lane| async move {
        queue::claim_in_lane(db, "w", LEASE, 8, lane)
            .await
            .expect("claim")
    };
    let render = claim(queue::Lane::Render).await.expect("the prepare");
    assert_eq!(render.kind, kinds::PREPARE, "not the finishing ponder job");
    assert!(
        claim(queue::Lane::Render).await.is_none(),
        "ponder is not the render lane's"
    );
    let model = claim(queue::Lane::Model).await.expect("the ponder job");
    assert_eq!(model.kind, PONDER);
    assert_eq!(model.kind.lane(), queue::Lane::Model, "the lane read back");
    assert!(claim(queue::Lane::Model).await.is_none());
}

/// Many workers claiming at once never take more than the cap for one account.
async fn concurrent_fair_claimers_never_exceed_the_cap(app: TestApp) {
    let a = app.account().await;
    let b = app.account().await;
    for _ in 0..6 {
        new_video(&app, &a.api_key).await;
        new_video(&app, &b.api_key).await;
    }
    // Rounds of 16 claimers at once with a cap of one: each round must take exactly one
    // job per account; the jobs are then finished so the next round starts even.
    for round in 0..5 {
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(16));
        let claims: Vec<_> = (0..16)
            .map(|n| {
                let db = app.db().clone();
                let barrier = std::sync::Arc::clone(&barrier);
                tokio::spawn(async move {
                    barrier.wait().await;
                    let worker = format!("r{round}w{n}");
                    let job = queue::claim_fair(&db, &worker, LEASE, 1)
                        .await
                        .expect("claim");
                    job.map(|j| (worker, j))
                })
            })
            .collect();
        let mut claimed = Vec::new();
        for claim in claims {
            if let Some(job) = claim.await.expect("task") {
                claimed.push(job);
            }
        }
        assert_eq!(
            claimed.len(),
            2,
            "round {round}: one per account: {claimed:?}"
        );
        for (worker, job) in claimed {
            assert!(
                queue::complete(app.db(), &job, &worker)
                    .await
                    .expect("complete")
            );
        }
    }
}

/// Many accounts, a cap of two, claimers racing without finishing anything: every account
/// ends with exactly two jobs running, never three (on PostgreSQL the claims of different
/// accounts run in parallel, those of one account queue behind its row lock).
async fn concurrent_claimers_fill_every_account_to_its_cap_and_no_further(app: TestApp) {
    let mut owner = std::collections::HashMap::new();
    for n in 0..4 {
        let acct = app.account().await;
        for _ in 0..5 {
            owner.insert(new_video(&app, &acct.api_key).await, n);
        }
    }
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(12));
    let racers: Vec<_> = (0..12)
        .map(|n| {
            let db = app.db().clone();
            let barrier = std::sync::Arc::clone(&barrier);
            tokio::spawn(async move {
                barrier.wait().await;
                let mut taken = Vec::new();
                while let Some(job) = queue::claim_fair(&db, &format!("w{n}"), LEASE, 2)
                    .await
                    .expect("claim")
                {
                    taken.push(job.video_id);
                }
                taken
            })
        })
        .collect();
    let mut taken = Vec::new();
    for racer in racers {
        taken.extend(racer.await.expect("task"));
    }
    // Whatever a racer left (every row it looked at held by a claim in flight) is taken now.
    while let Some(job) = queue::claim_fair(app.db(), "late", LEASE, 2)
        .await
        .expect("claim")
    {
        taken.push(job.video_id);
    }
    let mut per_account = [0; 4];
    for video in &taken {
        per_account[owner[video]] += 1;
    }
    assert_eq!(per_account, [2, 2, 2, 2], "{taken:?}");
}

/// Many claimers claiming and completing at once, as workers do, under a cap: every job is
/// done exactly once and no claim fails.
async fn claimers_that_complete_as_they_go_drain_the_queue_without_an_error(app: TestApp) {
    let mut videos = HashSet::new();
    for _ in 0..6 {
        let acct = app.account().await;
        for _ in 0..8 {
            videos.insert(new_video(&app, &acct.api_key).await);
        }
    }
    let done = drain(app.db(), 24).await;
    assert_eq!(done.len(), videos.len(), "every job done exactly once");
    assert_eq!(done.into_iter().collect::<HashSet<_>>(), videos);
}

/// The counts on `accounts` (PostgreSQL's claim reads them under the account's lock) equal
/// the jobs' states after claims, completions, retries, hand-backs, lease rescues and a delete.
async fn account_job_counts_follow_every_state_change(app: TestApp) {
    let stillreel_server::Db::Postgres(pool) = app.db() else {
        panic!("a PostgreSQL test got another database");
    };
    let accounts = [app.account().await, app.account().await];
    for acct in &accounts {
        for _ in 0..3 {
            new_video(&app, &acct.api_key).await;
        }
    }
    let check = |step: &'static str| {
        let pool = pool.clone();
        async move {
            let wrong: Vec<(Uuid, i32, i64, i32, i64, i32, i64)> = sqlx::query_as(
                "SELECT a.id, a.jobs_queued,
                        (SELECT COUNT(*) FROM jobs j JOIN videos v ON v.id = j.video_id
                          WHERE v.account_id = a.id AND j.state = 'queued'),
                        a.jobs_running,
                        (SELECT COUNT(*) FROM jobs j JOIN videos v ON v.id = j.video_id
                          WHERE v.account_id = a.id AND j.state = 'running'),
                        a.jobs_finishing,
                        (SELECT COUNT(*) FROM jobs j JOIN videos v ON v.id = j.video_id
                          WHERE v.account_id = a.id AND j.state = 'queued' AND j.claim_rank = 0)
                 FROM accounts a",
            )
            .fetch_all(&pool)
            .await
            .expect("counts");
            let wrong: Vec<_> = wrong
                .into_iter()
                .filter(|(_, q, rq, r, rr, f, rf)| {
                    i64::from(*q) != *rq || i64::from(*r) != *rr || i64::from(*f) != *rf
                })
                .collect();
            assert!(wrong.is_empty(), "after {step}: {wrong:?}");
        }
    };
    // A finishing job (claim rank 0) beside each prepare, so the claims below take those and
    // the finishing counts go through every change too.
    sqlx::query(
        "INSERT INTO jobs (video_id, kind, claim_rank, makes, state, run_after, created_at, updated_at)
         SELECT video_id, 'stitch', 0, 'video', 'queued', 0, 0, 0 FROM jobs WHERE kind = 'prepare'",
    )
    .execute(pool)
    .await
    .expect("finishing jobs");
    check("enqueue").await;
    let a = queue::claim(app.db(), "w", LEASE)
        .await
        .expect("claim")
        .expect("a job");
    let b = queue::claim(app.db(), "w", LEASE)
        .await
        .expect("claim")
        .expect("a job");
    let c = queue::claim(app.db(), "w", Duration::ZERO)
        .await
        .expect("claim")
        .expect("a job");
    check("claims").await;
    assert!(queue::complete(app.db(), &a, "w").await.expect("write"));
    check("complete").await;
    assert!(
        queue::fail(app.db(), &b, "w", "boom", Some(Duration::ZERO))
            .await
            .expect("fail")
    );
    check("retry").await;
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert!(
        stillreel_server::repo::sweep::expired_leases(app.db())
            .await
            .expect("rescue")
            >= 1
    );
    check("lease rescue").await;
    let d = queue::claim(app.db(), "w", LEASE)
        .await
        .expect("claim")
        .expect("a job");
    assert!(queue::release(app.db(), &d, "w").await.expect("write"));
    check("hand-back").await;
    sqlx::query("DELETE FROM jobs WHERE id = $1")
        .bind(c.id)
        .execute(pool)
        .await
        .expect("delete");
    check("delete").await;
}
