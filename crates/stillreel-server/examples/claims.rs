//! Queue claims per second on PostgreSQL with no-op jobs (`bench/scale.sh`): N
//! concurrent claimers, each `queue::claim_fair` (the per-account cap on, as workers run it)
//! then `queue::complete` at once, until the queue is empty. Each claimer has a connection of
//! its own, as separate worker processes would.
//!
//!   STILLREEL_BENCH_PG_URL=postgres://user:pw@host/postgres \
//!     cargo run --release -p stillreel-server --example claims -- [JOBS] [ROUNDS] [CLAIMERS...]
//!
//! Defaults: 3000 jobs a round, 3 rounds, claimers 1 8 32. Creates (and drops) a database of
//! its own. Prints one line per round and a `median` line per claimer count:
//! `claims claimers=8 median=2345.6/s p50_ms=... p99_ms=...`.

#![expect(clippy::print_stdout, reason = "the figures are the output")]

use std::sync::Arc;
use std::time::{Duration, Instant};

use sqlx::postgres::PgPoolOptions;
use stillreel_server::Db;
use stillreel_server::config::DatabaseConfig;
use stillreel_server::queue;
use uuid::Uuid;

/// Accounts the jobs are spread over (round robin), so the cap of 2 running per account
/// does not hold 32 claimers back.
const ACCOUNTS: usize = 64;
/// `STILLREEL_ACCOUNT_MAX_RUNNING`'s default.
const CAP: usize = 2;
const LEASE: Duration = Duration::from_secs(30);

fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let slash = base
        .rfind('/')
        .filter(|&i| i > "postgres://".len())
        .unwrap_or(base.len());
    let mut out = format!("{}/{name}", &base[..slash]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Empties the queue and adds `jobs` queued jobs over the accounts' videos.
async fn fill(pool: &sqlx::PgPool, videos: &[Uuid], jobs: usize) {
    sqlx::query("DELETE FROM jobs")
        .execute(pool)
        .await
        .expect("empty jobs");
    let now = stillreel_server::db::now_ms();
    sqlx::query(
        "INSERT INTO jobs (video_id, kind, claim_rank, state, run_after, created_at, updated_at)
         SELECT ($1::uuid[])[1 + (g % cardinality($1::uuid[]))], 'prepare', 2, 'queued', $2, $2, $2
         FROM generate_series(0, $3 - 1) AS g",
    )
    .bind(videos)
    .bind(now)
    .bind(i64::try_from(jobs).expect("jobs"))
    .execute(pool)
    .await
    .expect("insert jobs");
    sqlx::query("VACUUM ANALYZE jobs")
        .execute(pool)
        .await
        .expect("vacuum");
}

/// Accounts, their default projects and one video each.
async fn seed(pool: &sqlx::PgPool) -> Vec<Uuid> {
    let now = stillreel_server::db::now_ms();
    let mut videos = Vec::new();
    for n in 0..ACCOUNTS {
        let (account, project, video) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        sqlx::query(
            "INSERT INTO accounts (id, name, clip_limit, created_at) VALUES ($1, $2, 100, $3)",
        )
        .bind(account)
        .bind(format!("bench-{n}"))
        .bind(now)
        .execute(pool)
        .await
        .expect("account");
        sqlx::query(
            "INSERT INTO projects (id, account_id, name, is_default, created_at) VALUES ($1, $2, 'default', true, $3)",
        )
        .bind(project)
        .bind(account)
        .bind(now)
        .execute(pool)
        .await
        .expect("project");
        sqlx::query(
            "INSERT INTO videos (id, account_id, project_id, kind, request, orientation, resolution, engine, status, created_at, updated_at)
             VALUES ($1, $2, $3, 'create', '{}'::jsonb, 'landscape', '720p', 'ffmpeg', 'queued', $4, $4)",
        )
        .bind(video)
        .bind(account)
        .bind(project)
        .bind(now)
        .execute(pool)
        .await
        .expect("video");
        videos.push(video);
    }
    videos
}

/// One round: `claimers` tasks claim and complete until the queue is empty. Claims per
/// second and every claim's latency in ms.
async fn round(db: &Db, claimers: usize) -> (f64, Vec<f64>, usize) {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for n in 0..claimers {
        let db = db.clone();
        tasks.push(tokio::spawn(async move {
            let worker = format!("bench/{n}");
            let mut latencies = Vec::new();
            loop {
                let t = Instant::now();
                let job = queue::claim_fair(&db, &worker, LEASE, CAP)
                    .await
                    .expect("claim");
                latencies.push(t.elapsed().as_secs_f64() * 1000.0);
                let Some(job) = job else { break };
                assert!(
                    queue::complete(&db, &job, &worker).await.expect("complete"),
                    "completed a job we hold"
                );
            }
            latencies.pop();
            latencies
        }));
    }
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.expect("claimer"));
    }
    let claims = latencies.len();
    let rate = claims as f64 / started.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    (rate, latencies, claims)
}

#[tokio::main]
async fn main() {
    let admin_url = std::env::var("STILLREEL_BENCH_PG_URL")
        .or_else(|_| std::env::var("STILLREEL_TEST_PG_URL"))
        .expect("set STILLREEL_BENCH_PG_URL (or STILLREEL_TEST_PG_URL) to a PostgreSQL server URL");
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers"))
        .collect();
    let jobs = args.first().copied().unwrap_or(3000);
    let rounds = args.get(1).copied().unwrap_or(3);
    let levels: Vec<usize> = if args.len() > 2 {
        args[2..].to_vec()
    } else {
        vec![1, 8, 32]
    };
    let name = format!("stillreel_bench_{}", Uuid::new_v4().simple());
    let admin = sqlx::PgPool::connect(&admin_url)
        .await
        .expect("connect to the server");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&admin)
        .await
        .expect("create the bench database");
    let url = with_database(&admin_url, &name);
    // Migrations through the server's own start-up path.
    let migrated = Db::connect(&DatabaseConfig::Postgres(url.clone()))
        .await
        .expect("connect and migrate");
    if let Db::Postgres(pool) = &migrated {
        pool.close().await;
    }
    let max = levels.iter().copied().max().unwrap_or(1);
    let pool = PgPoolOptions::new()
        .max_connections(u32::try_from(max + 1).expect("claimers"))
        .min_connections(u32::try_from(max + 1).expect("claimers"))
        .connect(&url)
        .await
        .expect("connect");
    let videos = seed(&pool).await;
    let db = Db::Postgres(pool.clone());
    let setup = Arc::new(pool);
    for &claimers in &levels {
        let mut rates = Vec::new();
        let mut all = Vec::new();
        for r in 1..=rounds {
            fill(&setup, &videos, jobs).await;
            let (rate, latencies, claims) = round(&db, claimers).await;
            assert_eq!(claims, jobs, "every job claimed exactly once");
            println!(
                "claims claimers={claimers} round={r} rate={rate:.1}/s p50_ms={:.2} p99_ms={:.2}",
                percentile(&latencies, 0.5),
                percentile(&latencies, 0.99)
            );
            rates.push(rate);
            all.extend(latencies);
        }
        all.sort_by(f64::total_cmp);
        println!(
            "claims claimers={claimers} median={:.1}/s p50_ms={:.2} p99_ms={:.2} rounds={}",
            median(&mut rates),
            percentile(&all, 0.5),
            percentile(&all, 0.99),
            rates
                .iter()
                .map(|r| format!("{r:.0}"))
                .collect::<Vec<_>>()
                .join("/")
        );
    }
    setup.close().await;
    let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    )))
    .execute(&admin)
    .await;
}
