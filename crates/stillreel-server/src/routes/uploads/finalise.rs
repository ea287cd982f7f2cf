//! The end of an upload, once its body has arrived: the file moved into storage and recorded
//! against the quota, or removed again. It runs on a task of its own (`upload_media` spawns
//! it), so a client that hangs up cannot stop it half-way.

use std::path::PathBuf;

use super::over_quota;
use crate::error::ApiError;
use crate::repo::uploads::{self, NewUpload};
use crate::state::AppState;

/// A file of the upload that is removed when dropped unless it was handed on.
pub(super) struct TempFile(pub(super) Option<PathBuf>);

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Moves the received file into storage and records it, or removes it again when the quota
/// (checked with the account's row locked, `uploads::record`) refuses it or recording fails.
pub(super) async fn finalise(
    state: AppState,
    upload: NewUpload,
    temp: TempFile,
) -> Result<NewUpload, ApiError> {
    let storage = state.storage.clone();
    let put_key = upload.key.clone();
    tokio::task::spawn_blocking(move || {
        let path = temp.0.clone().unwrap_or_default();
        let _temp = temp;
        storage.put(&path, &put_key)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("upload task: {e}")))?
    .map_err(|e| ApiError::Internal(format!("storing an upload: {e}")))?;
    let recorded = uploads::record(&state.db, &upload).await;
    if !matches!(recorded, Ok(true)) {
        let storage = state.storage.clone();
        let key = upload.key.clone();
        let removed = tokio::task::spawn_blocking(move || storage.delete(&key)).await;
        if !matches!(removed, Ok(Ok(()))) {
            // The start-up sweep (`worker/uploads_sweep.rs`) removes it later.
            tracing::warn!(key = %upload.key, "a refused upload's file could not be removed");
        }
    }
    if !recorded? {
        let (quota, used) = uploads::usage(&state.db, upload.account).await?;
        return Err(over_quota(quota, used, upload.bytes));
    }
    Ok(upload)
}
