//! HEIC pictures, the iPhone's default format. ffmpeg 5.1 cannot read them, so a HEIC input
//! is turned into a JPEG as it is fetched ([`HeifDecoder::to_jpeg`]), and everything after it
//! (the still canvas, ffmpeg, the providers, thumbnails) sees only that JPEG.
//!
//! **Decision: Debian's `heif-convert` in a process of its own**, not libheif linked in
//! through a crate. The HEVC decoder behind libheif (libde265) is C parsing untrusted bytes;
//! run as a process it gets what ffmpeg gets: a data-segment limit (`prlimit --data`), a
//! kill when the fetch deadline passes, and a crash that fails one picture instead of the
//! worker. The crate route would also pin an old line: `libheif-rs` 3 needs libheif 1.17 and
//! `libheif-sys` 1.16.2 and later need 1.16, while Debian 12 ships 1.15, so only the 0.20 line
//! of 2023 (bindings of libheif 1.14) would build. Either way the library is Debian's
//! `libheif1`, updated by Debian's security fixes.
//!
//! **Output: JPEG at quality [`JPEG_QUALITY`].** heif-convert writes JPEG or PNG; on this
//! machine a 12-megapixel (4032 × 3024) HEIC took 0.44 s to JPEG and 2.6 s to PNG (zlib's
//! default level on a photo), and the clip is H.264 at 720p or 1080p, where a second
//! generation at quality 95 does not show.
//!
//! **Orientation.** libheif applies the file's own transforms (`irot`, `imir`) when it
//! decodes. A picture with either has its EXIF orientation ignored (the EXIF block is removed
//! from the JPEG, see [`without_exif`]): iPhones store both, saying the same thing, and
//! applying both would turn the picture twice. A picture with neither keeps its EXIF in the
//! JPEG, so its orientation tag is honoured like any JPEG's (encoders that copy EXIF from a
//! source JPEG, such as Debian 12's `heif-enc`, store a turned photo that way).
//!
//! **Limits.** The fetcher checks the byte limit while downloading and the pixel cap from
//! the header (ftyp and meta come first in these files) before this runs, on every picture
//! the file holds ([`HeifHeader::largest`]: a grid's assembled size too, whatever its `ispe`
//! says); [`HeifHeader`] must read; a file declaring more than one top-level picture is
//! refused before decoding (heif-convert decodes and writes every one), and again if the
//! decoder writes more than one; the decoder runs under [`HeifDecoder::memory_limit`].

mod damage;
mod header;
mod items;
mod jpeg_exif;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use self::damage::Damaged;
pub use self::header::{HeifHeader, is_heic};
pub use self::items::DESCRIPTION_PAST_END;
pub use self::jpeg_exif::without_exif;

/// JPEG quality of the decoded picture (see the module doc).
pub const JPEG_QUALITY: u8 = 95;

/// Default data-segment limit of one decode, the same as one ffmpeg run's: a 49.8-megapixel
/// HEIC (8640 × 5760) peaked at 222 MiB resident and decoded under a 256 MiB limit (and
/// failed under 192 MiB), so 1.5 GiB leaves room for 10-bit and tiled pictures.
pub const DEFAULT_MEMORY_LIMIT: u64 = 1536 * 1024 * 1024;

/// How HEIC pictures are decoded.
#[derive(Debug, Clone)]
pub struct HeifDecoder {
    /// The `heif-convert` program (Debian's `libheif-examples`); a bare name is looked up on
    /// `PATH`.
    pub program: PathBuf,
    /// Data-segment limit of one decode in bytes (`None`: none), set with util-linux
    /// `prlimit` as for ffmpeg (the code forbids the `unsafe` a `pre_exec` would need).
    pub memory_limit: Option<u64>,
    /// Wall time of one decode before it is killed (a 49.8-megapixel picture takes about
    /// 2 s). The fetch deadline bounds it too; this bounds a decoder that hangs (one was
    /// seen to wait forever when the memory limit refused it a thread) whoever calls it.
    pub time_limit: Duration,
}

impl Default for HeifDecoder {
    fn default() -> Self {
        HeifDecoder {
            program: PathBuf::from("heif-convert"),
            memory_limit: Some(DEFAULT_MEMORY_LIMIT),
            time_limit: Duration::from_secs(30),
        }
    }
}

/// Why a HEIC picture could not be turned into a JPEG.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeifError {
    /// The header does not read: nothing was decoded.
    #[error("the HEIC picture is damaged: {0}")]
    Damaged(#[from] Damaged),
    /// The decoder refused the file; its own reason.
    #[error("the HEIC picture could not be decoded: {0}")]
    Undecodable(String),
    /// More than one top-level picture.
    #[error("the HEIC file holds {0} pictures; send one picture per file")]
    Several(usize),
    /// The decoder could not be started: a fault of the deployment, not of the file.
    #[error("the HEIF decoder could not be started: {0}")]
    Unavailable(String),
    /// A file of the conversion could not be written or read.
    #[error("{0}")]
    Io(String),
}

/// A HEIC picture decoded to a JPEG file.
#[derive(Debug, Clone)]
pub struct Converted {
    pub header: HeifHeader,
    /// `<dir>/<stem>.jpg`.
    pub path: PathBuf,
    /// The JPEG's bytes (also at `path`).
    pub jpeg: Vec<u8>,
}

impl HeifDecoder {
    /// Decodes `heic` into `<dir>/<stem>.jpg`. The decoder works in a folder of its own under
    /// `dir`, removed afterwards, and is killed if this future is dropped (the fetch deadline).
    pub async fn to_jpeg(
        &self,
        heic: &[u8],
        dir: &Path,
        stem: &str,
    ) -> Result<Converted, HeifError> {
        let header = HeifHeader::read(heic)?;
        if header.pictures > 1 {
            return Err(HeifError::Several(header.pictures as usize));
        }
        let work = dir.join(format!("{stem}.heif"));
        let result = self.decode_in(&work, heic).await;
        let _ = tokio::fs::remove_dir_all(&work).await;
        let decoded = result?;
        let jpeg = if header.transformed() {
            without_exif(&decoded)
        } else {
            decoded
        };
        let path = dir.join(format!("{stem}.jpg"));
        tokio::fs::write(&path, &jpeg)
            .await
            .map_err(|e| HeifError::Io(format!("could not store the decoded picture: {e}")))?;
        Ok(Converted { header, path, jpeg })
    }

    /// Runs the decoder in `work` on `heic`; the JPEG's bytes.
    async fn decode_in(&self, work: &Path, heic: &[u8]) -> Result<Vec<u8>, HeifError> {
        let io = |e: std::io::Error| HeifError::Io(format!("HEIC decode folder: {e}"));
        tokio::fs::create_dir_all(work).await.map_err(io)?;
        tokio::fs::write(work.join("in.heic"), heic)
            .await
            .map_err(io)?;
        // Relative names in its own folder: the decoder's messages name no path of ours.
        let run = self.command().current_dir(work).output();
        let output = tokio::time::timeout(self.time_limit, run)
            .await
            .map_err(|_| {
                HeifError::Undecodable(format!(
                    "decoding took longer than {} s",
                    self.time_limit.as_secs()
                ))
            })?
            .map_err(|e| {
                tracing::error!(program = %self.program.display(), error = %e, "HEIF decoder did not start");
                HeifError::Unavailable(e.to_string())
            })?;
        if !output.status.success() {
            return Err(HeifError::Undecodable(reason(
                &output.stderr,
                output.status.code(),
            )));
        }
        match tokio::fs::read(work.join("out.jpg")).await {
            Ok(jpeg) => Ok(jpeg),
            // Several top-level pictures are written as out-1.jpg, out-2.jpg, ...
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut entries = tokio::fs::read_dir(work).await.map_err(io)?;
                let mut written = 0;
                while let Some(entry) = entries.next_entry().await.map_err(io)? {
                    if entry.file_name().to_string_lossy().ends_with(".jpg") {
                        written += 1;
                    }
                }
                Err(match written {
                    0 => HeifError::Undecodable("the decoder wrote no picture".to_owned()),
                    n => HeifError::Several(n),
                })
            }
            Err(e) => Err(io(e)),
        }
    }

    /// `heif-convert --quiet -q 95 in.heic out.jpg`, under `prlimit` with a memory limit.
    fn command(&self) -> tokio::process::Command {
        let quality = JPEG_QUALITY.to_string();
        let args = ["--quiet", "-q", quality.as_str(), "in.heic", "out.jpg"];
        let mut command = match self.memory_limit {
            Some(bytes) => {
                let mut c = tokio::process::Command::new("prlimit");
                c.arg(format!("--data={bytes}"))
                    .arg("--")
                    .arg(&self.program);
                c
            }
            None => tokio::process::Command::new(&self.program),
        };
        command
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        command
    }
}

/// The decoder's reason for a failure: the last line it wrote, at most 200 characters; a
/// decoder ended by a signal (an abort when memory ran out, a kill) says only that.
fn reason(stderr: &[u8], code: Option<i32>) -> String {
    let Some(code) = code else {
        return "the decoder was stopped (out of memory, or killed)".to_owned();
    };
    let text = String::from_utf8_lossy(stderr);
    text.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map_or_else(
            || format!("the decoder exited with status {code}"),
            |l| l.chars().take(200).collect(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_is_the_decoders_last_line() {
        let stderr = b"File contains 1 image\nCould not read HEIF/AVIF file: Invalid input: No 'meta' box\n\n";
        assert_eq!(
            reason(stderr, Some(1)),
            "Could not read HEIF/AVIF file: Invalid input: No 'meta' box"
        );
        assert_eq!(reason(b"", Some(1)), "the decoder exited with status 1");
        assert!(reason(b"what(): Resource temporarily unavailable", None).contains("stopped"));
        assert_eq!(reason(&[b'x'; 500], Some(1)).len(), 200);
    }

    #[test]
    fn the_decoder_runs_under_prlimit_with_relative_names() {
        let words = |c: &tokio::process::Command| {
            let std = c.as_std();
            std::iter::once(std.get_program())
                .chain(std.get_args())
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        };
        let limited = HeifDecoder {
            memory_limit: Some(1 << 30),
            ..HeifDecoder::default()
        };
        assert_eq!(
            words(&limited.command()),
            [
                "prlimit",
                "--data=1073741824",
                "--",
                "heif-convert",
                "--quiet",
                "-q",
                "95",
                "in.heic",
                "out.jpg"
            ]
        );
        let unlimited = HeifDecoder {
            program: PathBuf::from("/opt/heif-convert"),
            memory_limit: None,
            ..HeifDecoder::default()
        };
        assert_eq!(
            words(&unlimited.command()),
            [
                "/opt/heif-convert",
                "--quiet",
                "-q",
                "95",
                "in.heic",
                "out.jpg"
            ]
        );
    }
}
