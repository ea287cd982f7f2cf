//! How a job's work ended: the types the work returns and the settling reads, in a module
//! of their own so that the running (`job.rs`), the work (`steps.rs`) and the settling
//! (`settle.rs`) all depend on them and not on each other.

use std::time::Duration;

use stillreel_core::JobError;
use stillreel_render::{JobFailure, Prepared, StoredClip, StoredVideo};
use uuid::Uuid;

use crate::db::DbError;
use crate::webhook::AttemptResult;

/// Why a job did not produce its output.
#[derive(Debug)]
pub(super) enum Failure {
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
    pub(super) fn is_transient(&self) -> bool {
        match self {
            Failure::Job(f) => f.is_transient(),
            Failure::Db(_) | Failure::TimedOut(_) => true,
            Failure::Permanent(_) => false,
        }
    }

    pub(super) fn job_error(&self) -> JobError {
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

pub(super) fn render_failed(message: &str) -> JobError {
    JobError {
        code: "render_failed".to_owned(),
        message: message.to_owned(),
        field: None,
    }
}

/// What a finished step leaves to record.
#[derive(Debug)]
pub(super) enum Done {
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
pub(super) enum Outcome {
    Done(Done),
    Failed(Failure),
    /// Another worker may own the job now: touch nothing.
    LeaseLost,
    /// Shutting down and the grace period ran out: give the job back.
    HandBack,
    /// A webhook delivery attempt was made (or was not needed).
    Webhook(AttemptResult),
}

