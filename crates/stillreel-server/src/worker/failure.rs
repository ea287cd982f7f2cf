//! Why a job's work did not produce its output ([`Failure`]): what every kind's `run` returns
//! on failure and the runner's failure path (retry or fail for good) reads.

use std::time::Duration;

use stillreel_core::JobError;
use stillreel_render::JobFailure;

use crate::db::DbError;

/// Why a job did not produce its output.
#[derive(Debug)]
pub enum Failure {
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
    pub fn is_transient(&self) -> bool {
        match self {
            Failure::Job(f) => f.is_transient(),
            Failure::Db(_) | Failure::TimedOut(_) => true,
            Failure::Permanent(_) => false,
        }
    }

    /// The render step that failed (`clip 2`, `stitch`, `branding`, ...), for the log line.
    pub fn step(&self) -> Option<String> {
        match self {
            Failure::Job(f) => f.step().map(|step| step.to_string()),
            _ => None,
        }
    }

    /// The tail of ffmpeg's stderr, for the log line only (never the record).
    pub fn stderr_tail(&self) -> Option<&str> {
        match self {
            Failure::Job(f) => f.stderr_tail(),
            _ => None,
        }
    }

    pub fn job_error(&self) -> JobError {
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

pub fn render_failed(message: &str) -> JobError {
    JobError {
        code: "render_failed".to_owned(),
        message: message.to_owned(),
        field: None,
    }
}
