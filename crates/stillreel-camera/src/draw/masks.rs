//! Masks that move with the camera: an effect's masks of the still (its sky, its lit windows)
//! are computed once per clip from a small RGB copy of the canvas ([`canvas_rgb`]) and drawn
//! through the same window as the clip's frames, at their own small size ([`write_mask_frames`]).

use std::io::{self, Write};

use crate::draw::warp::Canvas;
use crate::geometry::clip_plan::ClipPlan;
use crate::geometry::homography::Homography;

/// The canvas as an RGB picture `width`×`height` (3 bytes a pixel), each pixel the mean of the
/// canvas pixels it covers, converted with BT.601's video-range matrix (the canvas's own).
pub fn canvas_rgb(canvas: &Canvas, width: usize, height: usize) -> Vec<u8> {
    let [y_plane, u_plane, v_plane] = canvas.planes();
    let (cw, ch) = (canvas.width() as usize, canvas.height() as usize);
    let mut out = Vec::with_capacity(width * height * 3);
    for oy in 0..height {
        let (y0, y1) = (
            oy * ch / height,
            ((oy + 1) * ch / height).max(oy * ch / height + 1),
        );
        for ox in 0..width {
            let (x0, x1) = (
                ox * cw / width,
                ((ox + 1) * cw / width).max(ox * cw / width + 1),
            );
            let (mut sy, mut su, mut sv, mut n, mut nc) = (0u32, 0u32, 0u32, 0u32, 0u32);
            for y in y0..y1 {
                for x in x0..x1 {
                    sy += u32::from(y_plane.data[y * y_plane.stride + x]);
                    n += 1;
                    if y % 2 == 0 && x % 2 == 0 {
                        let c = (y / 2) * u_plane.stride + x / 2;
                        su += u32::from(u_plane.data[c]);
                        sv += u32::from(v_plane.data[c]);
                        nc += 1;
                    }
                }
            }
            let luma = 1.164 * (sy as f32 / n as f32 - 16.0);
            let (u, v) = if nc == 0 {
                (0.0, 0.0)
            } else {
                (su as f32 / nc as f32 - 128.0, sv as f32 / nc as f32 - 128.0)
            };
            let rgb = [
                luma + 1.596 * v,
                luma - 0.392 * u - 0.813 * v,
                luma + 2.017 * u,
            ];
            out.extend(rgb.map(|c| c.round().clamp(0.0, 255.0) as u8));
        }
    }
    out
}

/// Writes the frames of a mask stream to `out`: `masks` holds `count` grey masks of
/// `width`×`height` (even) stacked top to bottom, as made from [`canvas_rgb`]; each frame shows
/// them through the window of clip frame 0, `step`, 2·`step`... (the plan's window scaled to
/// the masks' size), stacked the same way. Depth does not bend them: masks are soft and a
/// parallax shift is a pixel or two at this size.
pub fn write_mask_frames(
    plan: &ClipPlan,
    masks: &[u8],
    (width, height): (u32, u32),
    count: usize,
    step: u32,
    out: &mut dyn Write,
) -> io::Result<()> {
    let (w, h) = (width as usize, height as usize);
    assert_eq!(masks.len(), w * h * count, "mask size");
    let chroma = vec![128u8; 2 * (w / 2) * (h / 2)];
    let canvases = masks
        .chunks_exact(w * h)
        .map(|m| Canvas::from_yuv420p(width, height, &[m, &chroma].concat()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(io::Error::other)?;
    let (sx, sy) = (
        f64::from(width) / f64::from(plan.width),
        f64::from(height) / f64::from(plan.height),
    );
    let mut frame = vec![0u8; w * h + chroma.len()];
    for n in (0..plan.frames).step_by(step.max(1) as usize) {
        let corners = plan.window_at(n).map(|(x, y)| (x * sx, y * sy));
        let map = Homography::from_corners(corners, width, height);
        for canvas in &canvases {
            canvas.draw(&map, &mut frame, 1);
            out.write_all(&frame[..w * h])?;
        }
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::draw::warp::frame_bytes;
    use crate::geometry::clip_plan::Motion;
    use stillreel_core::{Engine, Orientation, Resolution};

    #[test]
    fn canvas_rgb_averages_and_converts_bt601() {
        // Left half BT.601 red (Y 81, U 90, V 240), right half white (235, 128, 128).
        let (w, h) = (8u32, 4u32);
        let mut yuv = vec![0u8; frame_bytes(w, h)];
        for y in 0..4 {
            for x in 0..8 {
                yuv[y * 8 + x] = if x < 4 { 81 } else { 235 };
            }
        }
        for (i, c) in yuv[32..].iter_mut().enumerate() {
            let x = i % 4;
            let u_plane = i < 8;
            *c = match (x < 2, u_plane) {
                (true, true) => 90,
                (true, false) => 240,
                _ => 128,
            };
        }
        let canvas = Canvas::from_yuv420p(w, h, &yuv).expect("canvas");
        let rgb = canvas_rgb(&canvas, 2, 1);
        assert!(
            rgb[0] > 250 && rgb[1] < 5 && rgb[2] < 5,
            "red: {:?}",
            &rgb[..3]
        );
        assert!(rgb[3..].iter().all(|&c| c > 250), "white: {:?}", &rgb[3..]);
    }

    #[test]
    fn mask_frames_follow_the_camera_window() {
        // A push-in: the window shrinks towards the middle, so a mask's bright top row moves
        // up and out of the frame; frame 0 shows the whole canvas.
        let plan = ClipPlan::new(
            Orientation::Landscape,
            Resolution::P720,
            Engine::V24,
            Motion::PushIn,
        );
        let (w, h) = (320u32, 180u32);
        let mut mask = vec![0u8; (w * h) as usize];
        mask[..(w * 20) as usize].fill(255);
        let mut out = Vec::new();
        write_mask_frames(&plan, &mask, (w, h), 1, 2, &mut out).expect("written");
        let size = (w * h) as usize;
        assert_eq!(out.len(), size * 75);
        let top_rows = |f: &[u8]| {
            (0..h as usize)
                .take_while(|&y| f[y * w as usize + 160] > 128)
                .count()
        };
        assert_eq!(top_rows(&out[..size]), 20);
        let last = &out[74 * size..];
        assert!(
            top_rows(last) < 20,
            "the sky band shrank: {}",
            top_rows(last)
        );
    }
}
