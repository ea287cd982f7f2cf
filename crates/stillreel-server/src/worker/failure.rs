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

/// `error` as the record shows it when the input at fault came from the video's brand kit
/// (`from_kit`: `branding.intro`, `branding.outro`, `audio_url`, as
/// `repo::videos::NewVideo::from_kit` stored them): at `branding.brand_kit`, the message
/// naming the kit's part, since the request did not name the input itself.
pub fn kit_error(error: JobError, from_kit: &[String]) -> JobError {
    let Some(field) = error.field.as_deref() else {
        return error;
    };
    let of_kit = from_kit.iter().any(|part| {
        field
            .strip_prefix(part.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    });
    if !of_kit {
        return error;
    }
    let in_kit = field.strip_prefix("branding.").unwrap_or(field);
    JobError {
        message: format!(
            "in the brand kit, at {in_kit}: {} (then save the kit again with POST /api/v1/update_brand_kit)",
            error.message
        ),
        field: Some("branding.brand_kit".to_owned()),
        code: error.code,
    }
}

pub fn render_failed(message: &str) -> JobError {
    JobError {
        code: "render_failed".to_owned(),
        message: message.to_owned(),
        field: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(field: Option<&str>) -> JobError {
        JobError {
            code: "media_unsupported".to_owned(),
            message: "the picture could not be decoded".to_owned(),
            field: field.map(str::to_owned),
        }
    }

    #[test]
    fn a_failure_of_a_part_the_kit_gave_is_the_kits() {
        let from_kit = ["branding.outro".to_owned(), "audio_url".to_owned()];
        let moved = kit_error(error(Some("branding.outro.config.headshot.url")), &from_kit);
        assert_eq!(moved.field.as_deref(), Some("branding.brand_kit"));
        assert_eq!(moved.code, "media_unsupported");
        assert!(
            moved
                .message
                .starts_with("in the brand kit, at outro.config.headshot.url: the picture"),
            "{}",
            moved.message
        );
        assert!(
            moved.message.contains("update_brand_kit"),
            "{}",
            moved.message
        );
        let music = kit_error(error(Some("audio_url")), &from_kit);
        assert_eq!(music.field.as_deref(), Some("branding.brand_kit"));
        assert!(
            music
                .message
                .starts_with("in the brand kit, at audio_url: ")
        );
        // The request's own intro, a photo and our own faults stay as they are.
        for field in [
            Some("branding.intro.config.logo.url"),
            Some("image_inputs[0].image_url"),
            None,
        ] {
            assert_eq!(
                kit_error(error(field), &from_kit),
                error(field),
                "{field:?}"
            );
        }
        // A prefix that is not a whole member does not match.
        assert_eq!(
            kit_error(error(Some("audio_url_x")), &from_kit),
            error(Some("audio_url_x"))
        );
    }
}
