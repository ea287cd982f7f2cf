//! Every SQL statement of the server except the queue's, grouped by what they touch.
//!
//! - [`accounts`]: accounts, API keys and projects (the CLI and authentication).
//! - [`videos`]: the one write path of new videos (their clips, branding, first job and
//!   idempotency answer in one transaction, group-committed on SQLite), and reading video
//!   records back.
//! - [`render`]: what the render worker calls: its input, and status/progress updates that
//!   only ever move forward (`queued → in_progress → complete | error`, progress never down).
//! - [`graph`]: what the steps of the job graph record (prepare's facts, each clip, the
//!   stitch), each with its job's completion, in one transaction.
//! - [`idempotency`]: `Idempotency-Key` records.
//! - [`model_calls`]: claims on model calls (one call per input, shared by every worker).
//! - [`sweep`]: jobs whose lease ran out, and the records they leave unfinished.
//! - [`webhooks`]: the webhook outbox: events, their delivery jobs and attempts.
//! - [`uploads`]: uploaded files and the account's upload quota.
//! - [`brand_kits`]: saved branding.
//! - [`stray_uploads`], [`deleted_videos`]: the start-up sweeps of stored files no record
//!   accounts for (an upload never recorded, a deleted video's files left by a stop).
//! - [`orphans`]: the attempts the lease sweep took back, whose stored files the orphan sweep
//!   removes.

pub mod accounts;
pub mod brand_kits;
pub mod deleted_videos;
pub mod graph;
pub mod idempotency;
pub mod model_calls;
pub mod orphans;
pub mod render;
pub mod stray_uploads;
pub mod sweep;
pub mod uploads;
pub mod videos;
pub mod webhooks;

use stillreel_core::WireEnum;

use crate::db::DbError;

/// Parses a stored enum spelling; a bad one means the database was edited by hand.
pub(crate) fn parse_enum<T: WireEnum>(text: &str, what: &str) -> Result<T, DbError> {
    T::parse(text).ok_or_else(|| DbError::Corrupt(format!("{what} {text:?}")))
}
