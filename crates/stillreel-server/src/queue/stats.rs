//! Reading the queue: depth for `/metrics`, a video's jobs for tests and diagnostics.

use uuid::Uuid;

use super::kind::JobKind;
use crate::db::{Db, DbError};

/// States of a job; `/metrics` reports the queue depth by state. `cancelled`: a sibling of a
/// clip that failed for good, never to run.
pub const JOB_STATES: &[&str] = &["queued", "running", "done", "failed", "cancelled"];

/// Number of jobs in each state, every state of [`JOB_STATES`] included (zero when empty).
pub async fn depth_by_state(db: &Db) -> Result<Vec<(&'static str, i64)>, DbError> {
    let rows: Vec<StateCount> = crate::db::on_db!(db, pool => {
        sqlx::query_as("SELECT state, COUNT(*) AS jobs FROM jobs GROUP BY state")
            .fetch_all(pool)
            .await?
    });
    Ok(JOB_STATES
        .iter()
        .map(|&state| {
            (
                state,
                rows.iter().find(|r| r.state == state).map_or(0, |r| r.jobs),
            )
        })
        .collect())
}

/// The jobs in one state ([`depth_by_state`]).
#[derive(sqlx::FromRow)]
struct StateCount {
    state: String,
    jobs: i64,
}

/// The jobs of one kind in one state ([`depth_by_kind`]).
#[derive(sqlx::FromRow)]
struct KindStateCount {
    kind: String,
    state: String,
    jobs: i64,
}

/// Jobs still to do (`queued`, `running`) by kind and state, for `/metrics`. Kinds as
/// stored, so a kind this build does not know still shows.
pub async fn depth_by_kind(db: &Db) -> Result<Vec<(String, String, i64)>, DbError> {
    let rows: Vec<KindStateCount> = crate::db::on_db!(db, pool => {
        sqlx::query_as(
            "SELECT kind, state, COUNT(*) AS jobs FROM jobs WHERE state IN ('queued', 'running')
             GROUP BY kind, state ORDER BY kind, state",
        )
        .fetch_all(pool)
        .await?
    });
    Ok(rows
        .into_iter()
        .map(|r| (r.kind, r.state, r.jobs))
        .collect())
}

/// The state and last error of every job of a video, oldest first (tests and diagnostics).
pub async fn jobs_of_video(
    db: &Db,
    video_id: Uuid,
) -> Result<Vec<(JobKind, String, Option<String>)>, DbError> {
    Ok(graph_of_video(db, video_id)
        .await?
        .into_iter()
        .map(|j| (j.kind, j.state, j.last_error))
        .collect())
}

/// One job of a video as [`graph_of_video`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobSummary {
    pub id: i64,
    pub kind: JobKind,
    pub clip_index: Option<usize>,
    pub state: String,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A jobs row as [`graph_of_video`] reads it.
#[derive(sqlx::FromRow)]
struct SummaryRow {
    id: i64,
    kind: String,
    claim_rank: i16,
    makes: Option<String>,
    lane: String,
    clip_index: Option<i32>,
    state: String,
    attempts: i32,
    last_error: Option<String>,
    created_at: i64,
    updated_at: i64,
}

/// Every job of a video, oldest first, with its clip index and times (tests, diagnostics).
pub async fn graph_of_video(db: &Db, video_id: Uuid) -> Result<Vec<JobSummary>, DbError> {
    let rows: Vec<SummaryRow> = crate::db::on_db!(db, pool => {
        sqlx::query_as(
            "SELECT id, kind, claim_rank, makes, lane, clip_index, state, attempts, last_error, created_at,
                    updated_at
             FROM jobs WHERE video_id = $1 ORDER BY id",
        )
        .bind(video_id)
        .fetch_all(pool)
        .await?
    });
    Ok(rows
        .into_iter()
        .map(|row| JobSummary {
            id: row.id,
            kind: JobKind::from_stored(&row.kind, row.claim_rank, row.makes.as_deref(), &row.lane),
            clip_index: row.clip_index.and_then(|i| usize::try_from(i).ok()),
            state: row.state,
            attempts: row.attempts,
            last_error: row.last_error,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
        .collect())
}
