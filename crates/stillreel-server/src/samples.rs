//! The bundled samples folder (`/samples/`): which of its paths are served. One rule for the
//! route that serves them and the worker that reads them through a media URL, so the worker
//! can read nothing the route refuses.

/// Whether a `/samples/...` path names a picture or a sound file directly in the samples
/// folder: what `GET /samples/` serves, and all a media URL may read of the folder.
pub fn is_sample_path(path: &str) -> bool {
    let Some(name) = path.strip_prefix("/samples/") else {
        return false;
    };
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && stem
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && matches!(
            ext.to_ascii_lowercase().as_str(),
            "jpg" | "jpeg" | "png" | "webp" | "mp3" | "m4a" | "aac" | "ogg" | "wav" | "flac"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_paths() {
        assert!(is_sample_path("/samples/house-bungalow.jpg"));
        assert!(is_sample_path("/samples/house-modern.webp"));
        assert!(is_sample_path("/samples/logo.PNG"));
        assert!(is_sample_path("/samples/theme.mp3"));
        assert!(is_sample_path("/samples/theme.ogg"));
        assert!(!is_sample_path("/samples/theme.mp3.txt"));
        assert!(!is_sample_path("/samples/README.md"));
        assert!(!is_sample_path("/samples/generate.py"));
        assert!(!is_sample_path("/samples/.secret.jpg"));
        assert!(!is_sample_path("/samples/sub/x.jpg"));
        assert!(!is_sample_path("/samples/x%2ejpg"));
        assert!(!is_sample_path("/samples/"));
    }
}
