//! Videos: the one path that stores a new one, and reading records back.
//!
//! Both endpoints and both backends store a video the same way: the handler hands a
//! [`NewVideo`] to [`Writer::create`] and gets the `queued` record's JSON. The writer builds
//! the video's rows as one batch ([`write`]) and decides how to commit them: on SQLite,
//! whose single writer makes a transaction per request the bottleneck, concurrent videos
//! share one transaction ([`group_commit`]); on PostgreSQL, which has concurrent writers,
//! each video commits on its own. Reads ([`read`], and the library's pages in [`list`], which
//! also deletes) are separate: they never wait for the writer.

mod group_commit;
mod list;
mod read;
mod write;

pub use list::{Deleted, ListQuery, cursor, delete_video, folders_of, list_videos, parse_cursor};
pub use read::{StoredClip, clips_of_account, deleted_sources, get_video, videos_among};
pub use stillreel_render::store::storage::still_key;
pub use write::{NewVideo, Source};

use std::sync::Arc;

use tokio::sync::Notify;

use crate::db::{Backend, Db, DbError};

/// Where new videos are stored. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Writer {
    db: Db,
    /// The group-commit task, on SQLite.
    group: Option<group_commit::GroupCommit>,
    /// Rung once a video (and so its first job) is committed.
    jobs_queued: Arc<Notify>,
}

impl Writer {
    /// A writer on `db` that rings `jobs_queued` after each commit (call inside a Tokio
    /// runtime: on SQLite it starts the group-commit task).
    pub fn new(db: Db, jobs_queued: Arc<Notify>) -> Self {
        let group =
            (db.backend() == Backend::Sqlite).then(|| group_commit::GroupCommit::spawn(db.clone()));
        Self {
            db,
            group,
            jobs_queued,
        }
    }

    /// Stores `video` with its clips, branding record, first job and idempotency answer, all
    /// in one transaction; returns its `queued` record's JSON.
    pub async fn create(&self, video: NewVideo) -> Result<String, DbError> {
        let record = match &self.group {
            Some(group) => group.create(video).await?,
            None => write::store(&self.db, &[&video])
                .await?
                .pop()
                .ok_or_else(|| DbError::Corrupt("a stored video has no record".to_owned()))?,
        };
        self.jobs_queued.notify_waiters();
        Ok(record)
    }
}
