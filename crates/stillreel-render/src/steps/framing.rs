//! The ffmpeg side of a clip's canvas: a still the camera crate does not decode in process
//! (WebP, HEIC, CMYK JPEGs, stills over its pixel limit) is thumbnailed and framed by ffmpeg
//! runs, cut as the camera's clip decides ([`stillreel_camera::clip::Decoder`]).

use std::path::Path;

use stillreel_camera::clip::{CanvasFraming, Decoder};
use stillreel_camera::geometry::clip_plan::ClipPlan;

use crate::ffmpeg::command::{self, StillInput};
use crate::ffmpeg::runner::{RenderError, Runner, Step, io_error};

/// ffmpeg runs over one clip's stored still (its path relative to `dir`, the run's folder).
pub(super) struct FfmpegStill<'a> {
    pub plan: &'a ClipPlan,
    pub still: &'a StillInput,
    pub index: usize,
    pub runner: &'a Runner,
    pub dir: &'a Path,
}

impl FfmpegStill<'_> {
    /// Runs `cmd` (which writes `name` in the run's folder) and takes the file it wrote.
    fn run_for(&self, cmd: &command::FfmpegArgs, name: &str) -> Result<Vec<u8>, RenderError> {
        let step = Step::Clip(self.index);
        self.runner.run(step, cmd, self.dir, &mut |_| {})?;
        let path = self.dir.join(name);
        let bytes = std::fs::read(&path).map_err(|e| io_error(step, e))?;
        let _ = std::fs::remove_file(&path);
        Ok(bytes)
    }
}

impl Decoder for FfmpegStill<'_> {
    type Error = RenderError;

    fn thumbnail(&mut self, long_side: u32) -> Result<(u32, u32, Vec<u8>), RenderError> {
        let name = format!("thumb-{:03}.ppm", self.index);
        let cmd = command::thumbnail_command(self.plan, self.still, long_side, Path::new(&name));
        let bytes = self.run_for(&cmd, &name)?;
        parse_ppm(&bytes).ok_or_else(|| RenderError::Rejected {
            step: Step::Clip(self.index),
            message: "the picture decoded to no frame".to_owned(),
        })
    }

    fn canvas(&mut self, framing: CanvasFraming, _: (u32, u32)) -> Result<Vec<u8>, RenderError> {
        let name = format!("canvas-{:03}.yuv", self.index);
        let cmd = command::canvas_command(self.plan, self.still, framing, Path::new(&name));
        self.run_for(&cmd, &name)
    }
}

/// A binary PPM (P6, 8-bit) as its width, height and RGB bytes.
fn parse_ppm(bytes: &[u8]) -> Option<(u32, u32, Vec<u8>)> {
    // The header: "P6", width, height, maxval, each after whitespace, then one whitespace byte.
    let mut fields = Vec::new();
    let mut at = 0;
    while fields.len() < 4 {
        while bytes.get(at)?.is_ascii_whitespace() {
            at += 1;
        }
        let start = at;
        while !bytes.get(at)?.is_ascii_whitespace() {
            at += 1;
        }
        fields.push(std::str::from_utf8(&bytes[start..at]).ok()?);
    }
    let body = bytes.get(at + 1..)?;
    let (w, h): (u32, u32) = (fields[1].parse().ok()?, fields[2].parse().ok()?);
    let wanted = (w as usize).checked_mul(h as usize)?.checked_mul(3)?;
    (fields[0] == "P6" && fields[3] == "255" && body.len() >= wanted && w > 0 && h > 0)
        .then(|| (w, h, body[..wanted].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_binary_ppm_and_refuses_a_short_one() {
        let mut ppm = b"P6\n2 1\n255\n".to_vec();
        ppm.extend_from_slice(&[1, 2, 3, 4, 5, 6]);
        assert_eq!(parse_ppm(&ppm), Some((2, 1, vec![1, 2, 3, 4, 5, 6])));
        assert_eq!(parse_ppm(&ppm[..ppm.len() - 1]), None);
        assert_eq!(parse_ppm(b"P5\n1 1\n255\n\0"), None);
    }
}
