//! The preview's blend of a join against the renderer's: the seams' own graph
//! (`stillreel_render::plan::transition::join_blend_graph`) run by ffmpeg on two photographs'
//! canvases, every frame of the join compared with `pixels::blend_yuv`. Native only: the
//! render crate runs ffmpeg and is no dependency of the wasm32 build.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;
use std::process::Command;

use stillreel_camera::input::ExifOrientation;
use stillreel_camera::input::canvas::canvas_yuv420p;
use stillreel_core::media::sniff;
use stillreel_core::{Fit, Transition};
use stillreel_preview::pixels::blend_yuv;
use stillreel_render::plan::transition::join_blend_graph;

const W: u32 = 320;
const H: u32 = 180;
const FPS: u32 = 30;

fn canvas(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name);
    let bytes = std::fs::read(path).expect("sample");
    let format = sniff(&bytes).expect("picture");
    canvas_yuv420p(
        &bytes,
        format,
        ExifOrientation::read(&bytes),
        W,
        H,
        Fit::Cover,
    )
    .expect("canvas")
    .frame
}

/// ffmpeg's frames of the join: `overlap` frames of `a` then of `b`, through the graph.
fn rendered(transition: Transition, a: &[u8], b: &[u8], overlap: u32) -> Vec<Vec<u8>> {
    let dir = tempfile::tempdir().expect("tempdir");
    let (pa, pb, out) = (
        dir.path().join("a.yuv"),
        dir.path().join("b.yuv"),
        dir.path().join("out.yuv"),
    );
    std::fs::write(&pa, a.repeat(overlap as usize)).expect("a");
    std::fs::write(&pb, b.repeat(overlap as usize)).expect("b");
    let size = format!("{W}x{H}");
    let raw = |p: &Path| {
        [
            "-f",
            "rawvideo",
            "-pix_fmt",
            "yuv420p",
            "-s",
            &size,
            "-r",
            "30",
            "-i",
            p.to_str().expect("path"),
        ]
        .map(str::to_owned)
    };
    let status = Command::new("ffmpeg")
        .args(["-nostdin", "-loglevel", "error", "-y"])
        .args(raw(&pa))
        .args(raw(&pb))
        .args([
            "-filter_complex",
            &join_blend_graph(transition, overlap, FPS),
        ])
        .args(["-map", "[v]", "-f", "rawvideo", "-pix_fmt", "yuv420p"])
        .arg(&out)
        .status()
        .expect("ffmpeg");
    assert!(status.success(), "ffmpeg failed");
    let bytes = std::fs::read(&out).expect("output");
    let len = a.len();
    // xfade passes one more frame of the right clip after the join; the join is the first
    // `overlap`.
    assert!(
        bytes.len() >= len * overlap as usize,
        "{transition:?}: frames out"
    );
    bytes
        .chunks(len)
        .take(overlap as usize)
        .map(<[u8]>::to_vec)
        .collect()
}

/// The mean difference in the chroma planes.
fn mean_chroma(a: &[u8], b: &[u8]) -> f64 {
    let luma = (W * H) as usize;
    let sum: u64 = a[luma..]
        .iter()
        .zip(&b[luma..])
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    sum as f64 / (a.len() - luma) as f64
}

/// The largest difference in the luma and in the chroma planes.
fn max_diff(a: &[u8], b: &[u8]) -> (u8, u8) {
    let luma = (W * H) as usize;
    let d = |r: std::ops::Range<usize>| {
        a[r.clone()]
            .iter()
            .zip(&b[r])
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0)
    };
    (d(0..luma), d(luma..a.len()))
}

#[test]
fn the_preview_blends_a_join_as_the_renderer_does() {
    let (a, b) = (canvas("house-colonial.jpg"), canvas("living-room.png"));
    for transition in [Transition::Crossfade, Transition::FadeBlack] {
        let overlap = transition.overlap_frames();
        let frames = rendered(transition, &a, &b, overlap);
        let mut worst = (0, 0);
        let mut worst_mean: f64 = 0.0;
        for (k, theirs) in frames.iter().enumerate() {
            let progress = 1.0 - k as f64 / f64::from(overlap);
            let mut mine = vec![0u8; a.len()];
            blend_yuv(transition, progress, &a, &b, (W, H), &mut mine);
            let (luma, chroma) = max_diff(&mine, theirs);
            let mean = mean_chroma(&mine, theirs);
            worst_mean = worst_mean.max(mean);
            eprintln!("{transition:?} frame {k}: luma {luma}, chroma {chroma} (mean {mean:.2})");
            worst = (worst.0.max(luma), worst.1.max(chroma));
        }
        eprintln!("{transition:?}: worst luma {}, chroma {}", worst.0, worst.1);
        match transition {
            // fade + overlay, integer arithmetic on yuv420p: the same bytes.
            Transition::Crossfade => assert_eq!(worst, (0, 0), "{transition:?}"),
            // xfade works on 4:4:4: ffmpeg converts the seam's chroma up and back down, which
            // moves chroma at sharp colour edges (up to 15 levels here, under 1.5 on average);
            // the preview blends the 4:2:0 planes as they are. Luma is xfade's to the level.
            _ => {
                assert!(worst.0 <= 1, "{transition:?}: luma {}", worst.0);
                assert!(
                    worst.1 <= 16 && worst_mean <= 1.5,
                    "{transition:?}: chroma {} (mean {worst_mean:.2})",
                    worst.1
                );
            }
        }
    }
}
