//! Configured paths made absolute once, at start-up, against the working folder the process
//! started in. ffmpeg runs inside each job's own folder, so a path that stayed relative to the
//! server's folder (the default `./data`) would name a file that is not there for ffmpeg.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use super::error::ConfigError;

/// `path` absolute: as it is when it already is, else joined to `working_dir`, with its `.`
/// parts dropped (`./data` in `/srv` is `/srv/data`). `..` parts are kept: through a symbolic
/// link they need not mean the parent folder. `working_dir` is `Err` when the process could
/// not read it; that is an error only for a relative path, named by `var`.
pub(super) fn absolute(
    var: &'static str,
    path: &Path,
    working_dir: Result<&Path, &str>,
) -> Result<PathBuf, ConfigError> {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        let base = working_dir.map_err(|err| ConfigError {
            var,
            message: format!(
                "{} is relative and the working folder cannot be read ({err}); give an \
                 absolute path",
                path.display()
            ),
        })?;
        base.join(path)
    };
    Ok(joined
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect())
}

/// The ffmpeg binary: a bare name (`ffmpeg`) is looked up on `PATH` by the system and stays as
/// it is; a path with a folder in it is made [`absolute`].
pub(super) fn program(
    var: &'static str,
    path: &Path,
    working_dir: Result<&Path, &str>,
) -> Result<PathBuf, ConfigError> {
    if path.components().count() == 1 && path.file_name() == Some(OsStr::new(path)) {
        return Ok(path.to_path_buf());
    }
    absolute(var, path, working_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn here() -> Result<&'static Path, &'static str> {
        Ok(Path::new("/srv/reel"))
    }
    const UNREADABLE: Result<&Path, &str> = Err("No such file or directory");

    #[test]
    fn relative_paths_join_the_working_folder() {
        for (given, expected) in [
            ("./data", "/srv/reel/data"),
            ("data", "/srv/reel/data"),
            ("./web/dist", "/srv/reel/web/dist"),
            ("./a/./b/", "/srv/reel/a/b"),
            ("../shared/samples", "/srv/reel/../shared/samples"),
            ("/var/lib/stillreel", "/var/lib/stillreel"),
            ("/var/./lib", "/var/lib"),
        ] {
            assert_eq!(
                absolute("STILLREEL_DATA_DIR", Path::new(given), here()).expect(given),
                PathBuf::from(expected),
                "{given}"
            );
        }
    }

    #[test]
    fn an_unreadable_working_folder_fails_only_relative_paths() {
        assert_eq!(
            absolute("STILLREEL_DATA_DIR", Path::new("/abs"), UNREADABLE).expect("absolute"),
            PathBuf::from("/abs")
        );
        let err =
            absolute("STILLREEL_DATA_DIR", Path::new("./data"), UNREADABLE).expect_err("relative");
        assert_eq!(err.var, "STILLREEL_DATA_DIR");
        assert!(err.message.contains("./data is relative"), "{err}");
    }

    #[test]
    fn a_bare_program_name_stays_for_the_path_lookup() {
        for (given, expected) in [
            ("ffmpeg", "ffmpeg"),
            ("bin/ffmpeg", "/srv/reel/bin/ffmpeg"),
            ("./ffmpeg", "/srv/reel/ffmpeg"),
            ("/usr/bin/ffmpeg", "/usr/bin/ffmpeg"),
        ] {
            assert_eq!(
                program("STILLREEL_FFMPEG", Path::new(given), here()).expect(given),
                PathBuf::from(expected),
                "{given}"
            );
        }
    }
}
