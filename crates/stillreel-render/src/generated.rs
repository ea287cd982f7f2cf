//! Generated inputs, stored and reused: a role's answer is kept in storage under a key made of
//! the role, the model, the SHA-256 of the input picture and the parameters (prompt, filled
//! input template, output size), so a retry, a second video of the same photo or a second
//! clip of it with the same settings never pays for a second call. The stored copy has passed
//! the answer checks ([`crate::provider::check_answer`]) and is checked again when read back.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::fetch::{MediaFormat, sniff};
use crate::provider::{ProviderError, ProviderOutput, RoleClient, RoleRequest, check_answer};
use crate::storage::Storage;

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
    client: &RoleClient,
    request: &RoleRequest<'_>,
    work_dir: &Path,
    index: usize,
) -> Result<Made, GenerateError> {
    made_with_key(storage, client, request, work_dir, index)
        .await
        .map(|(made, _)| made)
}

/// [`made`], with the storage key the answer is kept under.
pub async fn made_with_key(
    storage: &Arc<dyn Storage>,
    client: &RoleClient,
    request: &RoleRequest<'_>,
    work_dir: &Path,
    index: usize,
) -> Result<(Made, String), GenerateError> {
    let role = client.config().role;
    let key = cache_key(role.as_str(), &client.parameters(request), request.image);
    let local = work_dir.join(format!("generated-{index:03}"));
    let io = GenerateError::Io;
    let stored = {
        let (s, k, l) = (Arc::clone(storage), key.clone(), local.clone());
        tokio::task::spawn_blocking(move || match s.size(&k) {
            Ok(Some(_)) => s.get(&k, &l).is_ok(),
            _ => false,
        })
        .await
        .unwrap_or(false)
    };
    let output = if stored {
        let bytes = tokio::fs::read(&local).await.map_err(io)?;
        tracing::debug!(role = role.as_str(), "reusing a stored generated input");
        check_answer(role.output(), bytes, None).map_err(GenerateError::Provider)?
    } else {
        let output = client
            .call(request)
            .await
            .map_err(GenerateError::Provider)?;
        let bytes = match &output {
            ProviderOutput::Image { bytes, .. } | ProviderOutput::Clip { bytes } => bytes,
        };
        tokio::fs::write(&local, bytes).await.map_err(io)?;
        let (s, k, l) = (Arc::clone(storage), key.clone(), local.clone());
        // Best effort: a store that fails now only costs a second call later.
        let kept = tokio::task::spawn_blocking(move || s.put(&l, &k)).await;
        if !matches!(kept, Ok(Ok(_))) {
            tracing::warn!(
                role = role.as_str(),
                "a generated input could not be stored"
            );
        }
        output
    };
    match output {
        ProviderOutput::Image { bytes, format } => {
            let path = local.with_extension(format.extension());
            tokio::fs::write(&path, &bytes).await.map_err(io)?;
            debug_assert_eq!(sniff(&bytes), Some(format));
            Ok((Made::Still { path, format }, key))
        }
        ProviderOutput::Clip { bytes } => {
            let path = local.with_extension("mp4");
            tokio::fs::write(&path, &bytes).await.map_err(io)?;
            Ok((Made::Clip(path), key))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_role_picture_and_parameters() {
        let a = cache_key("staging", "replicate|m|stage a bedroom", b"photo");
        assert!(a.starts_with("private/generated/staging/"));
        assert_eq!(a.len(), "private/generated/staging/".len() + 64);
        crate::storage::check_key(&a).expect("a valid key");
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
