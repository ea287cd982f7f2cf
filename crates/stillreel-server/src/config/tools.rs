//! The external programs a render runs, found and their versions checked at start-up, before
//! anything is created: a missing or too old ffmpeg would otherwise fail every job.

use std::path::Path;
use std::process::Command;

use super::error::ConfigError;

/// The oldest ffmpeg (and ffprobe) the filter graphs are written for (docs/RENDER.md).
pub const MIN_FFMPEG: (u32, u32) = (5, 1);

/// `(major, minor)` from a `-version` banner's first line (`ffmpeg version 5.1.9-0+deb12u1
/// …`, `ffmpeg version n6.1 …`). `None` for a build named by its git revision
/// (`N-112345-gabcdef`), which says nothing about its release.
pub fn version_of(banner: &str) -> Option<(u32, u32)> {
    let word = banner.lines().next()?.split_whitespace().nth(2)?;
    let word = word.strip_prefix('n').unwrap_or(word);
    let mut parts = word.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

/// Runs `<program> -version` and checks what it says, naming `var` on failure.
fn check(program: &Path, var: &'static str) -> Result<(), ConfigError> {
    let name = program.display();
    let out = Command::new(program)
        .arg("-version")
        .output()
        .map_err(|e| ConfigError {
            var,
            message: format!("{name} could not be run ({e}); install ffmpeg or set {var}"),
        })?;
    let banner = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !banner.contains(" version ") {
        return Err(ConfigError {
            var,
            message: format!("{name} -version did not answer like ffmpeg's tools"),
        });
    }
    if let Some(found) = version_of(&banner)
        && found < MIN_FFMPEG
    {
        return Err(ConfigError {
            var,
            message: format!(
                "{name} is version {}.{}; {}.{} or later is needed",
                found.0, found.1, MIN_FFMPEG.0, MIN_FFMPEG.1
            ),
        });
    }
    Ok(())
}

/// Checks `ffmpeg` and the ffprobe beside it (or on the PATH). ffprobe has no variable of its
/// own: it is found from `STILLREEL_FFMPEG`, which the error names.
pub fn check_tools(ffmpeg: &Path) -> Result<(), ConfigError> {
    check(ffmpeg, "STILLREEL_FFMPEG")?;
    let ffprobe = stillreel_render::media::probe::ffprobe_beside(ffmpeg);
    check(&ffprobe, "STILLREEL_FFMPEG")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_the_banner() {
        assert_eq!(
            version_of("ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026"),
            Some((5, 1))
        );
        assert_eq!(version_of("ffprobe version n6.1 Copyright"), Some((6, 1)));
        assert_eq!(version_of("ffmpeg version 7 Copyright"), Some((7, 0)));
        assert_eq!(version_of("ffmpeg version N-112345-gabc Copyright"), None);
        assert!(version_of("ffmpeg version 4.4.2").is_some_and(|v| v < MIN_FFMPEG));
    }

    #[test]
    fn a_missing_program_names_the_variable() {
        let err = check_tools(Path::new("/nonexistent/ffmpeg")).expect_err("missing");
        assert_eq!(err.var, "STILLREEL_FFMPEG");
        let err = check_tools(Path::new("/bin/true")).expect_err("not ffmpeg");
        assert_eq!(err.var, "STILLREEL_FFMPEG");
    }
}
