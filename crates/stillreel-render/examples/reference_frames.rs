//! The renderer's frames before encoding, for the browser preview's same-pixels test
//! (`web/e2e/preview.test.mjs`): for each photo, orientation, motion and depth case, the clip
//! step's in-process path (the plan from `plan::video_plan::clip_plan`, the canvas of
//! `canvas_yuv420p`, the depth map checked and laid as the clip step does, `write_frames` on
//! the renderer's threads and widest SIMD) writes the chosen frames as raw yuv420p, with a
//! `manifest.json` naming them.
//!
//!   cargo run -p stillreel-render --example reference_frames -- OUT_DIR

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use stillreel_camera::depth::{DepthField, DepthMap, DepthPolarity};
use stillreel_camera::draw::warp::{Canvas, draw_threads, frame_bytes, write_frames};
use stillreel_camera::input::canvas::canvas_yuv420p;
use stillreel_camera::input::{ExifOrientation, sniff};
use stillreel_core::{CameraMotion, Engine, Fit, Orientation, Resolution};
use stillreel_render::media::fetch::{FetchedMedia, fnv1a};
use stillreel_render::plan::video_plan::{PictureFacts, VideoShape, clip_plan};

/// The frames each case keeps: the first, two inside the move and the last.
const FRAMES: [u32; 4] = [0, 37, 90, 149];

#[derive(Serialize)]
struct Case {
    name: String,
    photo: String,
    depth: Option<String>,
    orientation: Orientation,
    camera_motion: CameraMotion,
    fit: Fit,
    width: u32,
    height: u32,
    /// The motion the renderer resolved (for `auto`).
    motion: CameraMotion,
    frames: Vec<u32>,
    files: Vec<String>,
}

/// Keeps the frames of [`FRAMES`] out of the stream `write_frames` writes.
struct Keep<'a> {
    frame_len: usize,
    written: usize,
    current: Vec<u8>,
    kept: &'a mut Vec<Vec<u8>>,
}

impl Write for Keep<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while !rest.is_empty() {
            let take = (self.frame_len - self.current.len()).min(rest.len());
            self.current.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.current.len() == self.frame_len {
                let n = (self.written / self.frame_len) as u32;
                if FRAMES.contains(&n) {
                    self.kept.push(std::mem::take(&mut self.current));
                }
                self.current.clear();
                self.written += self.frame_len;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples")
}

#[expect(
    clippy::too_many_arguments,
    reason = "one case's every choice, named at the call"
)]
fn case(
    out: &Path,
    photo_name: &str,
    depth_name: Option<&str>,
    orientation: Orientation,
    camera_motion: CameraMotion,
    fit: Fit,
    cases: &mut Vec<Case>,
    name: &str,
) {
    let photo = std::fs::read(samples().join(photo_name)).expect("read the photo");
    let format = sniff(&photo).expect("a picture");
    let media = FetchedMedia {
        path: PathBuf::from(photo_name),
        format,
        bytes: photo.len() as u64,
        digest: fnv1a(&photo),
        orientation: ExifOrientation::read(&photo),
        dimensions: imagesize::blob_size(&photo)
            .ok()
            .map(|s| (s.width as u32, s.height as u32)),
    };
    let shape = VideoShape {
        orientation,
        resolution: Resolution::P720,
        engine: Engine::V25,
    };
    let plan = clip_plan(
        shape,
        &PictureFacts {
            camera_motion,
            upright: media.upright_dimensions(),
            digest: media.digest,
        },
    );
    let (bytes, placement) = canvas_yuv420p(
        &photo,
        format,
        media.orientation,
        plan.width,
        plan.height,
        fit,
    )
    .expect("the canvas in process");
    let canvas = Canvas::from_yuv420p(plan.width, plan.height, &bytes).expect("canvas");
    // The clip step's checks of a depth map, in its order (`steps::clip`).
    let field = depth_name.map(|d| {
        let png = std::fs::read(samples().join(d)).expect("read the depth map");
        let map = DepthMap::from_png(&png).expect("a depth map");
        map.check_aspect(media.upright_dimensions().expect("upright"))
            .expect("aspect");
        let map = map.with_polarity(DepthPolarity::BrighterIsNearer);
        map.check_usable().expect("usable");
        DepthField::prepare_placed(
            &map,
            (plan.width, plan.height),
            Some(&canvas.guide()),
            Some(&placement),
        )
    });
    let mut kept = Vec::new();
    let mut keep = Keep {
        frame_len: frame_bytes(plan.width, plan.height),
        written: 0,
        current: Vec::new(),
        kept: &mut kept,
    };
    write_frames(&plan, &canvas, field.as_ref(), draw_threads(), &mut keep).expect("frames");
    let files: Vec<String> = FRAMES
        .iter()
        .map(|n| format!("{name}-{n:03}.yuv"))
        .collect();
    for (file, frame) in files.iter().zip(&kept) {
        std::fs::write(out.join(file), frame).expect("write a frame");
    }
    cases.push(Case {
        name: name.to_owned(),
        photo: photo_name.to_owned(),
        depth: depth_name.map(str::to_owned),
        orientation,
        camera_motion,
        fit,
        width: plan.width,
        height: plan.height,
        motion: plan.motion.as_camera_motion(),
        frames: FRAMES.to_vec(),
        files,
    });
}

fn main() {
    let out = PathBuf::from(std::env::args().nth(1).expect("OUT_DIR"));
    std::fs::create_dir_all(&out).expect("create OUT_DIR");
    let mut cases = Vec::new();
    let motions = [
        CameraMotion::PushIn,
        CameraMotion::PushOut,
        CameraMotion::OrbitLeft,
        CameraMotion::OrbitRight,
    ];
    for orientation in [Orientation::Landscape, Orientation::Portrait] {
        for motion in motions {
            let o = orientation.as_str();
            let m = motion.as_str();
            // Flat: a JPEG photograph, framed as `auto` frames it.
            case(
                &out,
                "house-colonial.jpg",
                None,
                orientation,
                motion,
                Fit::Auto,
                &mut cases,
                &format!("flat-{o}-{m}"),
            );
            // Depth: the PNG interior with its map.
            case(
                &out,
                "living-room.png",
                Some("living-room-depth.png"),
                orientation,
                motion,
                Fit::Auto,
                &mut cases,
                &format!("depth-{o}-{m}"),
            );
        }
    }
    // `auto` motion and an EXIF-turned photo, resolved as the server resolves them.
    case(
        &out,
        "house-farm-exif-rotated.jpg",
        None,
        Orientation::Landscape,
        CameraMotion::Auto,
        Fit::Smart,
        &mut cases,
        "flat-landscape-auto-exif",
    );
    // A WebP: its canvas is ffmpeg's (not compared), but the `auto` motion the preview picks
    // from the file must be the renderer's.
    let motions: Vec<serde_json::Value> = [Orientation::Landscape, Orientation::Portrait]
        .into_iter()
        .map(|orientation| {
            let photo = std::fs::read(samples().join("house-modern.webp")).expect("read the WebP");
            let upright = imagesize::blob_size(&photo)
                .ok()
                .map(|s| (s.width as u32, s.height as u32));
            let plan = clip_plan(
                VideoShape {
                    orientation,
                    resolution: Resolution::P720,
                    engine: Engine::V25,
                },
                &PictureFacts {
                    camera_motion: CameraMotion::Auto,
                    upright,
                    digest: fnv1a(&photo),
                },
            );
            serde_json::json!({
                "photo": "house-modern.webp",
                "orientation": orientation,
                "motion": plan.motion.as_camera_motion(),
            })
        })
        .collect();
    let manifest =
        serde_json::to_string_pretty(&serde_json::json!({ "cases": cases, "motions": motions }))
            .expect("manifest");
    std::fs::write(out.join("manifest.json"), manifest).expect("write the manifest");
}
