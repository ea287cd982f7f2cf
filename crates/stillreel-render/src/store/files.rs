//! Moving files between a step's work directory and storage: make the directory, fetch a
//! stored object into it, store a result from it (on a blocking thread), and paths made
//! relative to it for ffmpeg. Every failure is a [`RenderError::Io`] naming its step.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::ffmpeg::runner::{RenderError, Step, io_error};
use crate::store::storage::Storage;

/// Creates the work directory of `step`.
pub(crate) fn make_dir(dir: &Path, step: Step) -> Result<(), RenderError> {
    std::fs::create_dir_all(dir).map_err(|e| io_error(step, e))
}

/// Makes stored `key` available at `dest` for `step`.
pub(crate) async fn get(
    storage: &Arc<dyn Storage>,
    key: &str,
    dest: &Path,
    step: Step,
) -> Result<(), RenderError> {
    crate::store::storage::get_async(storage, key, dest)
        .await
        .map_err(|e| io_error(step, e))
}

/// Stores `local` under `key` from a blocking thread; returns the URL path.
pub(crate) async fn put(
    storage: &Arc<dyn Storage>,
    local: PathBuf,
    key: String,
) -> Result<String, RenderError> {
    let storage = Arc::clone(storage);
    tokio::task::spawn_blocking(move || storage.put(&local, &key))
        .await
        .map_err(|e| io_error(Step::Store, e))?
        .map_err(|e| io_error(Step::Store, e))
}

/// `path` relative to the work directory `dir` (ffmpeg runs there), or as it is.
pub(crate) fn relative(dir: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(dir)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}
