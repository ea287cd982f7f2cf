//! The orphan sweep: removes the files of attempts the lease sweep took back from their
//! worker (`repo::orphans`), listing only the folder of each such attempt's video.

use std::sync::Arc;

use crate::db::DbError;
use crate::repo::orphans::{self, Abandoned};
use crate::state::Services;

use super::kinds;

/// How many noted attempts one pass handles; the rest wait for the next tick.
const PER_PASS: i64 = 100;

/// Removes the orphaned files of up to [`PER_PASS`] noted attempts; returns how many files it
/// removed. An attempt whose folder cannot be listed or cleaned stays noted for the next pass.
pub async fn sweep(state: &Services) -> Result<usize, DbError> {
    let mut removed = 0;
    for attempt in orphans::abandoned(&state.db, PER_PASS).await? {
        match remove_files_of(state, &attempt).await {
            Ok(n) => {
                removed += n;
                orphans::forget(&state.db, attempt.id).await?;
            }
            Err(err) => tracing::warn!(
                video = %attempt.video_id,
                error = %err,
                "cannot remove an abandoned attempt's files; will try again"
            ),
        }
    }
    Ok(removed)
}

async fn remove_files_of(state: &Services, attempt: &Abandoned) -> Result<usize, String> {
    let storage = Arc::clone(&state.storage);
    let folder = kinds::served_folder(attempt.video_id);
    let token = attempt.token.clone();
    tokio::task::spawn_blocking(move || {
        let listed = storage.list(&folder).map_err(|e| e.to_string())?;
        let found = orphans::orphaned(&listed, &token);
        for key in &found {
            storage.delete(key).map_err(|e| e.to_string())?;
            tracing::info!(key, "removed a file an abandoned attempt stored");
        }
        Ok(found.len())
    })
    .await
    .map_err(|e| e.to_string())?
}
