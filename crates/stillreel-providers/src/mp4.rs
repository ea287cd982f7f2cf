//! The duration of an MP4 from its movie header (`moov`/`mvhd`), read without ffmpeg so a
//! model's clip is judged before it is stored. A fragmented MP4 whose movie header leaves the
//! duration at zero reads as zero (and is refused as a clip answer).

use crate::bmff::{child, u32_at, u64_at};

/// Seconds, from `moov`/`mvhd` (version 0 or 1); `None` without one or with a zero timescale.
pub fn duration_secs(mp4: &[u8]) -> Option<f64> {
    let mvhd = child(child(mp4, b"moov")?, b"mvhd")?;
    let be32 = |at: usize| u32_at(mvhd, at).map(u64::from);
    let (timescale, duration) = match *mvhd.first()? {
        0 => (be32(12)?, be32(16)?),
        1 => (be32(20)?, u64_at(mvhd, 24)?),
        _ => return None,
    };
    (timescale > 0).then(|| duration as f64 / timescale as f64)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn atom(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut out = u32::try_from(body.len() + 8)
            .expect("small")
            .to_be_bytes()
            .to_vec();
        out.extend_from_slice(kind);
        out.extend_from_slice(body);
        out
    }

    /// A minimal MP4: `ftyp`, then `moov` with a version-0 `mvhd` of `duration` in `timescale`.
    pub(crate) fn movie(timescale: u32, duration: u32) -> Vec<u8> {
        let mut mvhd = vec![0u8; 4 + 8];
        mvhd.extend_from_slice(&timescale.to_be_bytes());
        mvhd.extend_from_slice(&duration.to_be_bytes());
        mvhd.extend_from_slice(&[0u8; 80]);
        let mut out = atom(b"ftyp", b"isom\0\0\x02\0isomiso2");
        out.extend(atom(b"free", b""));
        out.extend(atom(b"moov", &atom(b"mvhd", &mvhd)));
        out
    }

    #[test]
    fn reads_the_movie_header() {
        assert_eq!(duration_secs(&movie(1000, 5000)), Some(5.0));
        assert_eq!(duration_secs(&movie(600, 300)), Some(0.5));
        assert_eq!(duration_secs(&movie(0, 300)), None);
        // Version 1: 64-bit times.
        let mut mvhd = vec![1u8, 0, 0, 0];
        mvhd.extend_from_slice(&[0u8; 16]);
        mvhd.extend_from_slice(&90_000u32.to_be_bytes());
        mvhd.extend_from_slice(&450_000u64.to_be_bytes());
        let v1 = [atom(b"ftyp", b"isom"), atom(b"moov", &atom(b"mvhd", &mvhd))].concat();
        assert_eq!(duration_secs(&v1), Some(5.0));
        // No movie header, a truncated box, garbage.
        assert_eq!(duration_secs(&atom(b"ftyp", b"isom")), None);
        let mut cut = movie(1000, 5000);
        cut.truncate(cut.len() - 10);
        assert_eq!(duration_secs(&cut), None);
        assert_eq!(duration_secs(b"\xff\xff\xff\xffmoov"), None);
    }

    /// A real clip made by ffmpeg reads as its length.
    #[test]
    fn reads_an_ffmpeg_clip() {
        let dir = tempfile::tempdir().expect("dir");
        let out = dir.path().join("c.mp4");
        let made = std::process::Command::new("ffmpeg")
            .args([
                "-v",
                "error",
                "-f",
                "lavfi",
                "-i",
                "color=c=red:s=64x36:r=25:d=2",
                "-pix_fmt",
                "yuv420p",
            ])
            .arg(&out)
            .status()
            .expect("ffmpeg runs");
        assert!(made.success());
        let secs = duration_secs(&std::fs::read(&out).expect("read")).expect("duration");
        assert!((secs - 2.0).abs() < 0.05, "{secs}");
    }
}
