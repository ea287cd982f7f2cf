//! The renderer's frames before encoding, for the browser preview's same-pixels test
//! (`web/e2e/preview.test.mjs`): for each photo, orientation, motion and depth case, the clip
//! step's in-process path (the plan from `plan::video_plan::clip_plan`, the canvas of
//! `canvas_yuv420p`, the depth map checked and laid as the clip step does, `write_frames` on
//! the renderer's threads and widest SIMD) writes the chosen frames as raw yuv420p, with a
//! `manifest.json` naming them, and the motion `auto` resolves to for every sample.
//!
//!   cargo run -p stillreel-render --example reference_frames -- OUT_DIR

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use stillreel_camera::depth::{DepthField, DepthMap, DepthPolarity};
use stillreel_camera::draw::warp::{Canvas, draw_threads, frame_bytes, write_frames};
use stillreel_camera::geometry::clip_plan::Pace;
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
    resolution: Resolution,
    /// `through` for a video with the speed ramp (the clips keep moving through their ends).
    pace: &'static str,
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

/// What one case asks the renderer for.
#[derive(Clone, Copy)]
struct Ask<'a> {
    photo: &'a str,
    depth: Option<&'a str>,
    orientation: Orientation,
    resolution: Resolution,
    pace: Pace,
    camera_motion: CameraMotion,
    fit: Fit,
}

impl<'a> Ask<'a> {
    fn new(photo: &'a str, orientation: Orientation, camera_motion: CameraMotion) -> Self {
        Ask {
            photo,
            depth: None,
            orientation,
            resolution: Resolution::P720,
            pace: Pace::Engine,
            camera_motion,
            fit: Fit::Auto,
        }
    }
}

/// The facts the fetch step records of a sample (`FetchedMedia`), the plan's inputs.
fn fetched(photo: &str, bytes: &[u8]) -> FetchedMedia {
    FetchedMedia {
        path: PathBuf::from(photo),
        format: sniff(bytes).expect("a picture"),
        bytes: bytes.len() as u64,
        digest: fnv1a(bytes),
        orientation: ExifOrientation::read(bytes),
        dimensions: imagesize::blob_size(bytes)
            .ok()
            .map(|s| (s.width as u32, s.height as u32)),
    }
}

fn case(out: &Path, ask: Ask<'_>, cases: &mut Vec<Case>, name: &str) {
    let Ask {
        photo: photo_name,
        depth: depth_name,
        orientation,
        resolution,
        pace,
        camera_motion,
        fit,
    } = ask;
    let photo = std::fs::read(samples().join(photo_name)).expect("read the photo");
    let media = fetched(photo_name, &photo);
    let format = media.format;
    let shape = VideoShape {
        orientation,
        resolution,
        engine: Engine::V25,
    };
    let plan = clip_plan(
        shape,
        &PictureFacts {
            camera_motion,
            upright: media.upright_dimensions(),
            digest: media.digest,
            fit,
        },
    )
    .with_pace(pace);
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
        resolution,
        pace: if pace == Pace::Through {
            "through"
        } else {
            "engine"
        },
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
    use CameraMotion::{Auto, OrbitLeft, OrbitRight, PushIn, PushOut};
    use Orientation::{Landscape, Portrait};
    let out = PathBuf::from(std::env::args().nth(1).expect("OUT_DIR"));
    std::fs::create_dir_all(&out).expect("create OUT_DIR");
    let mut cases = Vec::new();
    let motions = [PushIn, PushOut, OrbitLeft, OrbitRight];
    for orientation in [Landscape, Portrait] {
        for motion in motions {
            let o = orientation.as_str();
            let m = motion.as_str();
            // Flat: a JPEG photograph, framed as `auto` frames it.
            let flat = Ask::new("house-colonial.jpg", orientation, motion);
            case(&out, flat, &mut cases, &format!("flat-{o}-{m}"));
            // Depth: the PNG interior with its map.
            let depth = Ask {
                depth: Some("living-room-depth.png"),
                ..Ask::new("living-room.png", orientation, motion)
            };
            case(&out, depth, &mut cases, &format!("depth-{o}-{m}"));
        }
    }
    let extra = [
        // `auto` motion and an EXIF-turned photo, resolved as the server resolves them.
        (
            "flat-landscape-auto-exif",
            Ask {
                fit: Fit::Smart,
                ..Ask::new("house-farm-exif-rotated.jpg", Landscape, Auto)
            },
        ),
        // Every framing by name: a portrait photo cut to cover, a landscape one contained.
        (
            "flat-landscape-push-in-cover",
            Ask {
                fit: Fit::Cover,
                ..Ask::new("house-townhouse-portrait.jpg", Landscape, PushIn)
            },
        ),
        (
            "flat-landscape-orbit-left-contain",
            Ask {
                fit: Fit::ContainBlur,
                ..Ask::new("house-colonial.jpg", Landscape, OrbitLeft)
            },
        ),
        // 1080p, with depth.
        (
            "depth-landscape-orbit-right-1080p",
            Ask {
                depth: Some("living-room-depth.png"),
                resolution: Resolution::P1080,
                ..Ask::new("living-room.png", Landscape, OrbitRight)
            },
        ),
        // The speed ramp's pacing (constant speed to the clip's ends), flat and with depth.
        (
            "ramp-landscape-push-out",
            Ask {
                pace: Pace::Through,
                ..Ask::new("house-bungalow.jpg", Landscape, PushOut)
            },
        ),
        (
            "ramp-depth-portrait-orbit-left",
            Ask {
                depth: Some("living-room-depth.png"),
                pace: Pace::Through,
                ..Ask::new("living-room.png", Portrait, OrbitLeft)
            },
        ),
    ];
    for (name, ask) in extra {
        case(&out, ask, &mut cases, name);
    }
    // `auto` for every sample, in both orientations: the motion the preview picks from the
    // file must be the renderer's (a WebP's canvas is ffmpeg's and not compared; its motion
    // is).
    let mut motions = Vec::new();
    for photo in [
        "house-colonial.jpg",
        "house-bungalow.jpg",
        "house-farm-exif-rotated.jpg",
        "house-townhouse-portrait.jpg",
        "house-modern.webp",
        "headshot.jpg",
        "living-room.png",
        "logo.png",
    ] {
        let bytes = std::fs::read(samples().join(photo)).expect("read the sample");
        let media = fetched(photo, &bytes);
        for orientation in [Landscape, Portrait] {
            // Auto framing contains some of them (no orbit); covered, the wide ones orbit.
            for fit in [Fit::Auto, Fit::Cover] {
                let plan = clip_plan(
                    VideoShape {
                        orientation,
                        resolution: Resolution::P720,
                        engine: Engine::V25,
                    },
                    &PictureFacts {
                        camera_motion: Auto,
                        upright: media.upright_dimensions(),
                        digest: media.digest,
                        fit,
                    },
                );
                motions.push(serde_json::json!({
                    "photo": photo,
                    "orientation": orientation,
                    "fit": fit,
                    "motion": plan.motion.as_camera_motion(),
                }));
            }
        }
    }
    let manifest =
        serde_json::to_string_pretty(&serde_json::json!({ "cases": cases, "motions": motions }))
            .expect("manifest");
    std::fs::write(out.join("manifest.json"), manifest).expect("write the manifest");
}
