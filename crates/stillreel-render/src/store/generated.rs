//! Generated inputs, stored and reused: a role's answer is kept in storage under a key made of
//! the role, the model, the SHA-256 of the input picture and the parameters (prompt, filled
//! input template, output size), so a retry, a second video of the same photo or a second
//! clip of it with the same settings never pays for a second call. The stored copy has passed
//! the answer checks ([`stillreel_providers::check_answer`]) and is checked again when read back.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::store::storage::Storage;
use stillreel_core::media::{MediaFormat, sniff};
use stillreel_providers::{
    CallClaims, ProviderError, ProviderOutput, RoleClient, RoleRequest, check_answer,
};

/// Where generated inputs live (never served: `/files/` refuses the private prefix).
pub const GENERATED_PREFIX: &str = "private/generated";

/// A generated input in the work dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Made {
    Still { path: PathBuf, format: MediaFormat },
    Clip(PathBuf),
}

#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error(transparent)]
    Provider(ProviderError),
    #[error(transparent)]
    Io(std::io::Error),
}

/// The storage key of a role's answer for `image` with `parameters`.
pub fn cache_key(role: &str, parameters: &str, image: &[u8]) -> String {
    let mut hash = Sha256::new();
    hash.update(Sha256::digest(image));
    hash.update(parameters.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in hash.finalize() {
        let _ = write!(hex, "{byte:02x}");
    }
    format!("{GENERATED_PREFIX}/{role}/{hex}")
}

/// The role's output for `request`: the stored one when there is one, else a new call whose
/// checked answer is stored before it is used.
pub async fn made(
    storage: &Arc<dyn Storage>,
    claims: &Arc<dyn CallClaims>,
    client: &RoleClient,
    request: &RoleRequest<'_>,
    work_dir: &Path,
    index: usize,
) -> Result<Made, GenerateError> {
    made_with_key(storage, claims, client, request, work_dir, index)
        .await
        .map(|(made, _)| made)
}

/// How often a job waiting for another job's call looks for its answer.
const WAIT_STEP: Duration = Duration::from_millis(400);

/// [`made`], with the storage key the answer is kept under. One call per input: a job that
/// finds the input's key claimed by another job's call (`claims`) waits for that answer
/// instead of calling too; the claim lapses after the role's time limit and a margin, so a
/// holder killed mid-call delays the waiter by at most that.
pub async fn made_with_key(
    storage: &Arc<dyn Storage>,
    claims: &Arc<dyn CallClaims>,
    client: &RoleClient,
    request: &RoleRequest<'_>,
    work_dir: &Path,
    index: usize,
) -> Result<(Made, String), GenerateError> {
    let role = client.config().role;
    let key = cache_key(role.as_str(), &client.parameters(request), request.image);
    let local = work_dir.join(format!("generated-{index:03}"));
    let lease = client.config().timeout + Duration::from_secs(30);
    let holder = format!("{}", uuid::Uuid::new_v4().simple());
    let output = loop {
        if let Some(output) = stored(storage, role, request, &key, &local).await? {
            tracing::debug!(role = role.as_str(), "reusing a stored generated input");
            break output;
        }
        if !claims.claim(&key, &holder, lease).await {
            tokio::time::sleep(WAIT_STEP).await;
            continue;
        }
        // Stored between the look and the claim by a holder that has just finished.
        if let Some(output) = stored(storage, role, request, &key, &local).await? {
            claims.release(&key, &holder).await;
            break output;
        }
        let called = call_and_keep(storage, client, request, &key, &local).await;
        claims.release(&key, &holder).await;
        break called?;
    };
    match output {
        ProviderOutput::Image { bytes, format } => {
            let path = local.with_extension(format.extension());
            tokio::fs::write(&path, &bytes)
                .await
                .map_err(GenerateError::Io)?;
            debug_assert_eq!(sniff(&bytes), Some(format));
            Ok((Made::Still { path, format }, key))
        }
        ProviderOutput::Clip { bytes } => {
            let path = local.with_extension("mp4");
            tokio::fs::write(&path, &bytes)
                .await
                .map_err(GenerateError::Io)?;
            Ok((Made::Clip(path), key))
        }
    }
}

/// The stored answer under `key`, checked again for this request; a stored answer that fails
/// the check (kept by an older version that checked less) is removed, so the next call
/// replaces it rather than the photo failing for good.
async fn stored(
    storage: &Arc<dyn Storage>,
    role: stillreel_providers::Role,
    request: &RoleRequest<'_>,
    key: &str,
    local: &Path,
) -> Result<Option<ProviderOutput>, GenerateError> {
    let found = {
        let (s, k, l) = (Arc::clone(storage), key.to_owned(), local.to_path_buf());
        tokio::task::spawn_blocking(move || match s.size(&k) {
            Ok(Some(_)) => s.get(&k, &l).is_ok(),
            _ => false,
        })
        .await
        .unwrap_or(false)
    };
    if !found {
        return Ok(None);
    }
    let bytes = tokio::fs::read(local).await.map_err(GenerateError::Io)?;
    match check_answer(role.output(), bytes, request.size) {
        Ok(output) => Ok(Some(output)),
        Err(e) => {
            tracing::warn!(role = role.as_str(), error = %e, "a stored generated input fails its check now; calling again");
            let (s, k) = (Arc::clone(storage), key.to_owned());
            let _ = tokio::task::spawn_blocking(move || s.delete(&k)).await;
            Ok(None)
        }
    }
}

/// Calls the role; the answer, checked in full (`check_answer`) before anything is kept, is
/// stored under `key`. A bad answer is never stored.
async fn call_and_keep(
    storage: &Arc<dyn Storage>,
    client: &RoleClient,
    request: &RoleRequest<'_>,
    key: &str,
    local: &Path,
) -> Result<ProviderOutput, GenerateError> {
    let role = client.config().role;
    let output = client
        .call(request)
        .await
        .map_err(GenerateError::Provider)?;
    let bytes = match &output {
        ProviderOutput::Image { bytes, .. } | ProviderOutput::Clip { bytes } => bytes,
    };
    tokio::fs::write(local, bytes)
        .await
        .map_err(GenerateError::Io)?;
    let (s, k, l) = (Arc::clone(storage), key.to_owned(), local.to_path_buf());
    // Best effort: a store that fails now only costs a second call later.
    let kept = tokio::task::spawn_blocking(move || s.put(&l, &k)).await;
    if !matches!(kept, Ok(Ok(_))) {
        tracing::warn!(
            role = role.as_str(),
            "a generated input could not be stored"
        );
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_role_picture_and_parameters() {
        let a = cache_key("staging", "replicate|m|stage a bedroom", b"photo");
        assert!(a.starts_with("private/generated/staging/"));
        assert_eq!(a.len(), "private/generated/staging/".len() + 64);
        crate::store::storage::check_key(&a).expect("a valid key");
        assert_eq!(
            a,
            cache_key("staging", "replicate|m|stage a bedroom", b"photo")
        );
        assert_ne!(
            a,
            cache_key("staging", "replicate|m|stage an office", b"photo")
        );
        assert_ne!(
            a,
            cache_key("staging", "replicate|m|stage a bedroom", b"photo2")
        );
        assert_ne!(
            a,
            cache_key("lifestyle", "replicate|m|stage a bedroom", b"photo")
        );
    }
}
