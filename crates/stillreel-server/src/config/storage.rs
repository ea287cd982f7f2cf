//! `STILLREEL_STORAGE_URL` and, for S3, the standard `AWS_*` variables: where rendered files
//! are kept. Opening the store is `src/storage.rs`.

use std::path::PathBuf;
use std::time::Duration;

use stillreel_render::S3Settings;

use super::error::ConfigError;

/// Where rendered files are kept (`STILLREEL_STORAGE_URL`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageConfig {
    /// Files in a local directory, served by the API at `/files` (the default: the data dir's
    /// `media` folder).
    Local(PathBuf),
    /// An S3 bucket (or an S3-compatible service); `/files` redirects to presigned GETs.
    S3(S3Settings),
}

/// Reads `STILLREEL_STORAGE_URL` and, for S3, the standard `AWS_*` variables.
pub(super) fn storage_config(
    get: &impl Fn(&str) -> Option<String>,
    data_dir: &std::path::Path,
) -> Result<StorageConfig, ConfigError> {
    const VAR: &str = "STILLREEL_STORAGE_URL";
    let bad = |message: String| ConfigError { var: VAR, message };
    let Some(url) = get(VAR) else {
        return Ok(StorageConfig::Local(data_dir.join("media")));
    };
    if let Some(path) = url.strip_prefix("file://") {
        if !path.starts_with('/') {
            return Err(bad(format!(
                "{url:?}: a file URL needs an absolute path (file:///srv/stillreel/media)"
            )));
        }
        return Ok(StorageConfig::Local(PathBuf::from(path)));
    }
    let Some(rest) = url.strip_prefix("s3://") else {
        return Err(bad(format!(
            "{url:?}: expected file:///absolute/path or s3://bucket/prefix"
        )));
    };
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let prefix = prefix.trim_matches('/');
    if bucket.is_empty() {
        return Err(bad(format!("{url:?} names no bucket")));
    }
    if !prefix.is_empty() && stillreel_render::store::storage::check_key(prefix).is_err() {
        return Err(bad(format!(
            "{url:?}: the prefix must be /-separated plain names of A-Z a-z 0-9 . _ -"
        )));
    }
    let flag = |var: &'static str| match get(var).as_deref() {
        None => Ok(false),
        Some(v) if v.eq_ignore_ascii_case("true") || v == "1" => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") || v == "0" => Ok(false),
        Some(v) => Err(ConfigError {
            var,
            message: format!("{v:?} is not true or false"),
        }),
    };
    let access_key_id = get("AWS_ACCESS_KEY_ID");
    let secret_access_key = get("AWS_SECRET_ACCESS_KEY");
    if access_key_id.is_some() != secret_access_key.is_some() {
        return Err(ConfigError {
            var: if access_key_id.is_some() {
                "AWS_SECRET_ACCESS_KEY"
            } else {
                "AWS_ACCESS_KEY_ID"
            },
            message: "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together".to_owned(),
        });
    }
    let endpoint = get("AWS_ENDPOINT_URL").or_else(|| get("AWS_ENDPOINT"));
    if let Some(endpoint) = &endpoint
        && !(endpoint.starts_with("http://") || endpoint.starts_with("https://"))
    {
        return Err(ConfigError {
            var: "AWS_ENDPOINT_URL",
            message: format!("{endpoint:?} must start with http:// or https://"),
        });
    }
    let presign_secs = match get("STILLREEL_STORAGE_PRESIGN_SECS") {
        None => 3600,
        // S3 signs links for at most seven days.
        Some(text) => text
            .parse::<u64>()
            .ok()
            .filter(|&s| (1..=604_800).contains(&s))
            .ok_or_else(|| ConfigError {
                var: "STILLREEL_STORAGE_PRESIGN_SECS",
                message: format!("{text:?} is not a whole number of seconds from 1 to 604800"),
            })?,
    };
    Ok(StorageConfig::S3(S3Settings {
        bucket: bucket.to_owned(),
        prefix: prefix.to_owned(),
        region: get("AWS_REGION").or_else(|| get("AWS_DEFAULT_REGION")),
        endpoint,
        access_key_id,
        secret_access_key,
        session_token: get("AWS_SESSION_TOKEN"),
        allow_http: flag("AWS_ALLOW_HTTP")?,
        presign_expiry: Duration::from_secs(presign_secs),
    }))
}
