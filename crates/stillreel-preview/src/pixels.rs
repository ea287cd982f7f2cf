//! The preview's pixel work after the camera: two clips' frames blended as ffmpeg's `xfade`
//! blends them (on yuv420p, its formulas, its truncation), and a yuv420p frame turned into the
//! RGBA a `<canvas>` takes.

use stillreel_core::Transition;

/// Frames of a crossfade (the core's overlap): fade's step is `65536 / JOIN` a frame.
const JOIN: u32 = Transition::Crossfade.overlap_frames();

/// The next clip's 8-bit alpha at `progress` (frame `k = (1 − progress)·JOIN` of the join), as
/// ffmpeg's `fade` computes it: factor `k · (65536 / JOIN)`, rounded.
fn crossfade_alpha(progress: f64) -> u32 {
    let k = ((1.0 - progress) * f64::from(JOIN)).round() as u32;
    (255 * k * (65_536 / JOIN) + 32_768) >> 16
}

/// Whether `progress` is the join's last frame (`k = JOIN − 1`).
fn last_of_join(progress: f64) -> bool {
    ((1.0 - progress) * f64::from(JOIN)).round() as u32 >= JOIN - 1
}

/// `x / 255` rounded, as `overlay` divides (`FAST_DIV255`).
fn div255(x: u32) -> u8 {
    (((x + 128) * 257) >> 16) as u8
}

/// xfade's `mix(a, b, m)`: `a·m + b·(1 − m)`.
fn mix(a: f32, b: f32, m: f32) -> f32 {
    a * m + b * (1.0 - m)
}

fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Blends `a` (the outgoing clip) and `b` (the next) of a `width` × `height` yuv420p frame
/// into `out` at xfade's `progress` (1: all `a`): `fade` for a crossfade, `fadeblack` (through
/// video-range black) for fade-black. A cut copies `b`.
pub fn blend_yuv(
    transition: Transition,
    progress: f64,
    a: &[u8],
    b: &[u8],
    (width, height): (u32, u32),
    out: &mut [u8],
) {
    let p = progress as f32;
    let luma = (width as usize) * (height as usize);
    match transition {
        Transition::Cut => out.copy_from_slice(b),
        Transition::Crossfade => {
            // The renderer's crossfade is `fade=alpha=1` on the next clip then `overlay`:
            // an 8-bit alpha from fade's 16-bit factor, and overlay's integer blend.
            let alpha = crossfade_alpha(progress);
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = div255(u32::from(x) * (255 - alpha) + u32::from(y) * alpha);
            }
        }
        // ffmpeg's `xfade` passes the next clip through on the frame where the outgoing one
        // ends, which in the renderer's seams is the join's last frame.
        Transition::FadeBlack if last_of_join(progress) => out.copy_from_slice(b),
        Transition::FadeBlack => {
            const PHASE: f32 = 0.2;
            let (sa, sb) = (smoothstep(1.0 - PHASE, 1.0, p), smoothstep(PHASE, 1.0, p));
            for (i, ((o, &x), &y)) in out.iter_mut().zip(a).zip(b).enumerate() {
                let black = if i < luma { 0.0 } else { 128.0 };
                let from = mix(f32::from(x), black, sa);
                let to = mix(black, f32::from(y), sb);
                *o = mix(from, to, p) as u8;
            }
        }
    }
}

/// How much of the outgoing and of the next clip a blended frame holds at `progress` (the
/// coefficients of [`blend_yuv`]'s formulas): what a caption drawn over the blend is faded
/// by, so it goes as its clip's picture goes (through black, with fade-black).
pub fn blend_weights(transition: Transition, progress: f64) -> (f64, f64) {
    let p = progress as f32;
    let (a, b) = match transition {
        Transition::Cut => (0.0, 1.0),
        Transition::Crossfade => {
            let alpha = crossfade_alpha(progress) as f32 / 255.0;
            (1.0 - alpha, alpha)
        }
        Transition::FadeBlack if last_of_join(progress) => (0.0, 1.0),
        Transition::FadeBlack => {
            const PHASE: f32 = 0.2;
            let (sa, sb) = (smoothstep(1.0 - PHASE, 1.0, p), smoothstep(PHASE, 1.0, p));
            (p * sa, (1.0 - p) * (1.0 - sb))
        }
    };
    (f64::from(a), f64::from(b))
}

/// A `width` × `height` yuv420p frame (video range, BT.601: how the canvas was converted) as
/// RGBA, opaque. Fixed point in 1/65536: a level at most from the exact conversion.
pub fn yuv_to_rgba(yuv: &[u8], (width, height): (u32, u32), rgba: &mut [u8]) {
    let (w, h) = (width as usize, height as usize);
    let (cw, ch) = (w / 2, h / 2);
    let (y_plane, chroma) = yuv.split_at(w * h);
    let (u_plane, v_plane) = chroma.split_at(cw * ch);
    for row in 0..h {
        let y_row = &y_plane[row * w..(row + 1) * w];
        let c = (row / 2).min(ch.saturating_sub(1)) * cw;
        let (u_row, v_row) = (&u_plane[c..c + cw], &v_plane[c..c + cw]);
        let out = &mut rgba[row * w * 4..(row + 1) * w * 4];
        for (x, (px, &yv)) in out.chunks_exact_mut(4).zip(y_row).enumerate() {
            let cx = (x / 2).min(cw.saturating_sub(1));
            let y = (i32::from(yv) - 16) * 76_309;
            let u = i32::from(u_row[cx]) - 128;
            let v = i32::from(v_row[cx]) - 128;
            let clamp = |n: i32| ((n + 32_768) >> 16).clamp(0, 255) as u8;
            px[0] = clamp(y + 104_597 * v);
            px[1] = clamp(y - 25_675 * u - 53_279 * v);
            px[2] = clamp(y + 132_201 * u);
            px[3] = 255;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn video_range_grey_and_primaries_convert_as_bt601() {
        // Y = 16 black, 235 white, 126 mid-grey; chroma neutral.
        let mut yuv = vec![0u8; 4 * 2 + 2 + 2];
        yuv[..8].copy_from_slice(&[16, 16, 235, 235, 126, 126, 126, 126]);
        yuv[8..].copy_from_slice(&[128, 128, 128, 128]);
        let mut rgba = vec![0u8; 4 * 2 * 4];
        yuv_to_rgba(&yuv, (4, 2), &mut rgba);
        assert_eq!(&rgba[0..4], &[0, 0, 0, 255]);
        assert_eq!(&rgba[8..12], &[255, 255, 255, 255]);
        assert_eq!(&rgba[16..20], &[128, 128, 128, 255]);
        // Pure red in BT.601 video range: Y 81, U 90, V 240.
        let red = [81, 81, 81, 81, 90, 240];
        let mut px = vec![0u8; 16];
        yuv_to_rgba(&red, (2, 2), &mut px);
        assert!(px[0] >= 254 && px[1] <= 1 && px[2] <= 1, "{px:?}");
    }

    /// The progress of frame `k` of a 15-frame join.
    fn at(k: u32) -> f64 {
        1.0 - f64::from(k) / 15.0
    }

    #[test]
    fn a_crossfade_goes_from_the_outgoing_clip_to_the_next_by_overlays_steps() {
        let (a, b) = (vec![200u8; 6], vec![20u8; 6]);
        let mut out = vec![0u8; 6];
        blend_yuv(Transition::Crossfade, at(0), &a, &b, (2, 2), &mut out);
        assert_eq!(out, a);
        let mut last = 200;
        for k in 1..15 {
            blend_yuv(Transition::Crossfade, at(k), &a, &b, (2, 2), &mut out);
            // Alpha 17 a frame (255 / 15): 12 levels of this pair a frame, always down.
            assert!(out[0] < last && last - out[0] <= 13, "frame {k}: {out:?}");
            last = out[0];
        }
        assert_eq!(last, 32);
    }

    #[test]
    fn the_weights_are_the_blends_coefficients() {
        // A white and a black clip, blended: the result is the weight (of 219 levels).
        let (white, black) = (
            vec![235, 235, 235, 235, 128, 128],
            vec![0, 0, 0, 0, 128, 128],
        );
        for transition in [Transition::Crossfade, Transition::FadeBlack] {
            for k in 0..15 {
                let (wa, wb) = blend_weights(transition, at(k));
                let mut out = vec![0u8; 6];
                blend_yuv(transition, at(k), &white, &black, (2, 2), &mut out);
                let a = f64::from(out[0]) / 235.0;
                assert!(
                    (a - wa).abs() < 0.01,
                    "{transition:?} {k}: {a} against {wa}"
                );
                blend_yuv(transition, at(k), &black, &white, (2, 2), &mut out);
                let b = f64::from(out[0]) / 235.0;
                assert!(
                    (b - wb).abs() < 0.01,
                    "{transition:?} {k}: {b} against {wb}"
                );
            }
        }
    }

    #[test]
    fn fade_black_dips_to_black_and_ends_on_the_next_clip() {
        let (a, b) = (vec![200u8; 6], vec![180u8; 6]);
        let mut out = vec![0u8; 6];
        blend_yuv(Transition::FadeBlack, at(0), &a, &b, (2, 2), &mut out);
        assert_eq!(out, a);
        // Three frames in: the outgoing clip is gone and the next barely in; luma near
        // xfade's black (0), chroma near neutral.
        blend_yuv(Transition::FadeBlack, at(3), &a, &b, (2, 2), &mut out);
        assert!(out[..4].iter().all(|&v| v <= 10), "{out:?}");
        assert!(
            out[4..].iter().all(|&v| (128..=140).contains(&v)),
            "{out:?}"
        );
        // The join's last frame is the next clip alone, as the renderer's xfade passes it.
        blend_yuv(Transition::FadeBlack, at(14), &a, &b, (2, 2), &mut out);
        assert_eq!(out, b);
    }
}
