//! Files of deleted videos: `delete_video` marks the record deleted, then removes the files on
//! a task no client can cancel, so only a process stopped in between leaves them. Swept once
//! at start-up, listing only the folders of videos whose record is marked deleted
//! (`repo::videos::folders_of`), never the whole store.
//!
//! Video records are never removed, so a folder without any record is not something the server
//! leaves; and no file is written for a deleted video (a video cannot be deleted while it or
//! its branding renders), so no grace period is needed.

use std::sync::Arc;

use uuid::Uuid;

use crate::db::{Db, DbError, on_db};
use crate::repo::videos::folders_of;
use crate::storage::{Storage, remove_empty_folders};

/// Removes every file (and empty folder) left in a deleted video's folders; answers how many
/// files it removed.
pub async fn sweep(db: &Db, storage: &Arc<dyn Storage>) -> Result<usize, DbError> {
    let deleted: Vec<Uuid> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT id FROM videos WHERE deleted_at IS NOT NULL",
    )
    .fetch_all(pool)
    .await?);
    if deleted.is_empty() {
        return Ok(0);
    }
    let storage = Arc::clone(storage);
    let removed = tokio::task::spawn_blocking(move || {
        let mut removed = 0;
        for id in deleted {
            for folder in folders_of(id) {
                let listed = match storage.list(&folder) {
                    Ok(listed) => listed,
                    Err(err) => {
                        tracing::warn!(folder, error = %err, "cannot list a deleted video's folder");
                        continue;
                    }
                };
                for key in &listed {
                    match storage.delete(key) {
                        Ok(()) => {
                            removed += 1;
                            tracing::info!(key, "removed a file of a deleted video");
                        }
                        Err(err) => {
                            tracing::warn!(key, error = %err, "cannot remove a deleted video's file")
                        }
                    }
                }
                remove_empty_folders(storage.as_ref(), &folder);
            }
        }
        removed
    })
    .await
    .unwrap_or(0);
    Ok(removed)
}
