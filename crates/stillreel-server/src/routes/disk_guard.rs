//! The free-space guard of the routes that create files.

use crate::state::AppState;

/// 507 `insufficient_storage` when the data folder's disk is below `STILLREEL_MIN_FREE_BYTES`
/// (`crate::disk`): the first thing a request that creates files does after the API key.
pub(crate) fn refuse_when_low(state: &AppState) -> Result<(), crate::error::ApiError> {
    if crate::disk::is_low(&state.config) {
        Err(crate::error::ApiError::InsufficientStorage)
    } else {
        Ok(())
    }
}
