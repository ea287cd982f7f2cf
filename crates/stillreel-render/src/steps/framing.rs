//! The clip's canvas, framed as the request's `fit` asks (docs/API-DESIGN.md#framing): in
//! process when the camera crate decodes the still (JPEG, PNG), else by ffmpeg, which needs the
//! photo's shape and content first for `auto` and `smart`: a small thumbnail run gives both.

use std::path::Path;

use stillreel_camera::draw::warp::Canvas;
use stillreel_camera::input::canvas as still_canvas;
use stillreel_camera::input::framing::{self, Framing, Placement, THUMB_LONG_SIDE, cover_box};
use stillreel_core::Fit;

use crate::ffmpeg::command::{self, CanvasFraming, StillInput};
use crate::ffmpeg::runner::{RenderError, Runner, Step, io_error};
use stillreel_camera::geometry::clip_plan::ClipPlan;

/// The canvas of `still` (a path relative to `dir`) for `plan`, framed by `fit`, and where the
/// photo lies on it (the depth map is laid the same way; `None`: a centred cover, of a photo
/// whose size this run did not learn).
pub(super) fn framed_canvas(
    plan: &ClipPlan,
    still: &StillInput,
    fit: Fit,
    index: usize,
    runner: &Runner,
    dir: &Path,
) -> Result<(Canvas, Option<Placement>), RenderError> {
    let step = Step::Clip(index);
    let (width, height) = (plan.width, plan.height);
    let bytes = std::fs::read(dir.join(&still.path)).map_err(|e| io_error(step, e))?;
    if let Some((frame, placement)) =
        still_canvas::canvas_yuv420p(&bytes, still.format, still.orientation, width, height, fit)
    {
        let canvas = Canvas::from_yuv420p(width, height, &frame).map_err(|e| io_error(step, e))?;
        return Ok((canvas, Some(placement)));
    }
    drop(bytes);
    let frame = (width, height);
    let (canvas_framing, placement) = if fit == Fit::Cover {
        (CanvasFraming::Cover { position: 0.5 }, None)
    } else {
        let (tw, th, thumb) = thumbnail(plan, still, index, runner, dir)?;
        let (framing, placement) = match framing::resolve(fit, (tw, th), frame) {
            Framing::Cover => cover_at(0.5, (tw, th), frame),
            Framing::Smart => {
                let cover = cover_box(tw, th, width, height);
                let position = framing::smart_cut(cover, (tw, th), &thumb, (tw, th), false);
                cover_at(position.unwrap_or(0.5), (tw, th), frame)
            }
            Framing::ContainBlur => {
                let (fw, fh) = framing::contain_size((tw, th), frame);
                let placement = Placement {
                    photo: [0.0, 0.0, 1.0, 1.0],
                    canvas: [
                        f64::from(((width - fw) / 2) & !1),
                        f64::from(((height - fh) / 2) & !1),
                        f64::from(fw),
                        f64::from(fh),
                    ],
                };
                (CanvasFraming::ContainBlur, placement)
            }
        };
        (framing, Some(placement))
    };
    let name = format!("canvas-{index:03}.yuv");
    let cmd = command::canvas_command(plan, still, canvas_framing, Path::new(&name));
    runner.run(step, &cmd, dir, &mut |_| {})?;
    let path = dir.join(&name);
    let bytes = std::fs::read(&path).map_err(|e| io_error(step, e))?;
    let _ = std::fs::remove_file(&path);
    // ffmpeg may exit 0 having decoded no frame of a broken picture: the picture's fault.
    let canvas =
        Canvas::from_yuv420p(width, height, &bytes).map_err(|e| RenderError::Rejected {
            step,
            message: format!("the picture decoded to no frame: {e}"),
        })?;
    Ok((canvas, placement))
}

/// A cover cut at `position` of a photo shaped `upright`, and its placement.
fn cover_at(position: f64, upright: (u32, u32), frame: (u32, u32)) -> (CanvasFraming, Placement) {
    let placed = cover_box(upright.0, upright.1, frame.0, frame.1).cut_at(position, upright);
    (
        CanvasFraming::Cover { position },
        Placement::cover(placed, upright, frame),
    )
}

/// The upright still at most [`THUMB_LONG_SIDE`] on its long side, as RGB, made by ffmpeg.
fn thumbnail(
    plan: &ClipPlan,
    still: &StillInput,
    index: usize,
    runner: &Runner,
    dir: &Path,
) -> Result<(u32, u32, Vec<u8>), RenderError> {
    let step = Step::Clip(index);
    let name = format!("thumb-{index:03}.ppm");
    let cmd = command::thumbnail_command(plan, still, THUMB_LONG_SIDE, Path::new(&name));
    runner.run(step, &cmd, dir, &mut |_| {})?;
    let path = dir.join(&name);
    let bytes = std::fs::read(&path).map_err(|e| io_error(step, e))?;
    let _ = std::fs::remove_file(&path);
    parse_ppm(&bytes).ok_or_else(|| RenderError::Rejected {
        step,
        message: "the picture decoded to no frame".to_owned(),
    })
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

    #[test]
    fn a_cover_cut_at_an_end_places_the_photos_end() {
        // A portrait photo in a landscape frame, cut at the top.
        let (_, placement) = cover_at(0.0, (600, 900), (1280, 720));
        assert_eq!(placement.photo[1], 0.0);
        assert!((placement.photo[3] - 0.375).abs() < 0.01);
        assert_eq!(placement.canvas, [0.0, 0.0, 1280.0, 720.0]);
    }
}
