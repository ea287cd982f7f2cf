//! A claimed job ([`Job`]) and the row it is read from, shared by the claim and the lease
//! calls.

use std::time::Duration;

use uuid::Uuid;

use super::kind::JobKind;

/// A job a worker holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub id: i64,
    pub video_id: Uuid,
    pub kind: JobKind,
    /// The clip the job works on (a clip job renders it).
    pub clip_index: Option<usize>,
    /// Attempts so far, this one included.
    pub attempts: i32,
    pub max_attempts: i32,
    /// Millisecond timestamp at which the lease runs out unless renewed.
    pub lease_expires_at: i64,
    /// The random token of this claim. Every write for the job matches on it (and on the
    /// worker id), so a worker whose lease was taken over can never complete the job, even
    /// when the new claim is its own namesake's.
    pub token: String,
}

/// A jobs row as the claim reads it (`RETURNING`).
#[derive(sqlx::FromRow)]
pub(super) struct JobRow {
    pub(super) id: i64,
    pub(super) video_id: Uuid,
    pub(super) kind: String,
    pub(super) clip_index: Option<i32>,
    pub(super) attempts: i32,
    pub(super) max_attempts: i32,
    pub(super) lease_expires_at: Option<i64>,
    pub(super) lease_token: Option<String>,
    pub(super) claim_rank: i16,
    pub(super) makes: Option<String>,
    pub(super) lane: String,
}

impl From<JobRow> for Job {
    fn from(row: JobRow) -> Self {
        Job {
            id: row.id,
            video_id: row.video_id,
            kind: JobKind::from_stored(&row.kind, row.claim_rank, row.makes.as_deref(), &row.lane),
            clip_index: row.clip_index.and_then(|i| usize::try_from(i).ok()),
            attempts: row.attempts,
            max_attempts: row.max_attempts,
            lease_expires_at: row.lease_expires_at.unwrap_or_default(),
            token: row.lease_token.unwrap_or_default(),
        }
    }
}

/// `d` in milliseconds, saturating.
pub(super) fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}
