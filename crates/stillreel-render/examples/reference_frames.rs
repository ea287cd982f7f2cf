//! The renderer's frames before encoding, for the browser preview's same-pixels test
//! (`web/e2e/preview.test.mjs`): for each photo, orientation, motion and depth case, the clip
//! step itself ([`Renderer::render_clip`], the code that ships) renders the clip, and a
//! [`FrameTap`] keeps the chosen frames on their way to the encoder, written as raw yuv420p with
//! a `manifest.json` naming them, and the motion `auto` resolves to for every sample.
//!
//!   cargo run -p stillreel-render --example reference_frames -- OUT_DIR

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use stillreel_camera::depth::{DepthInput, DepthPolarity};
use stillreel_camera::geometry::clip_plan::Pace;
use stillreel_camera::input::ExifOrientation;
use stillreel_core::media::sniff;
use stillreel_core::{CameraMotion, Engine, Fit, Orientation, Resolution};
use stillreel_render::media::fetch::{FetchedMedia, fnv1a};
use stillreel_render::plan::video_plan::{PictureFacts, VideoShape, clip_plan};
use stillreel_render::steps::input_key;
use stillreel_render::{
    ClipJob, ClipLook, ClipUse, FetchConfig, Fetcher, FrameTap, LocalStorage, NoObserver,
    RenderConfig, Renderer, Storage, StoredInput,
};

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

/// The frames the tap kept, by number.
type Kept = Arc<Mutex<Vec<(u32, Vec<u8>)>>>;

/// A renderer over a folder of `out`, whose tap keeps [`FRAMES`].
struct Rig {
    work: PathBuf,
    renderer: Renderer,
    storage: Arc<LocalStorage>,
    kept: Kept,
    runtime: tokio::runtime::Runtime,
}

impl Rig {
    fn new(out: &Path) -> Self {
        let work = out.join("work");
        std::fs::create_dir_all(&work).expect("create the work folder");
        let storage = Arc::new(LocalStorage::new(work.join("store"), "/files"));
        let kept: Kept = Arc::default();
        let tap_kept = Arc::clone(&kept);
        let config = RenderConfig {
            frame_tap: Some(FrameTap(Arc::new(move |_, n, frame| {
                if FRAMES.contains(&n) {
                    tap_kept.lock().expect("kept").push((n, frame.to_vec()));
                }
            }))),
            // The frames are taken before the encoder: its quality is not what is compared.
            encoding: stillreel_render::ffmpeg::command::Encoding {
                preset: "superfast".to_owned(),
                ..Default::default()
            },
            ..RenderConfig::default()
        };
        let renderer = Renderer::new(
            config,
            Fetcher::new(FetchConfig::default(), None),
            Arc::clone(&storage) as Arc<dyn Storage>,
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        Rig {
            work,
            renderer,
            storage,
            kept,
            runtime,
        }
    }

    /// Stores a copy of `file` at `key` (`put` moves its file in).
    fn store(&self, file: &Path, key: &str) {
        let copy = self.work.join("upload");
        std::fs::copy(file, &copy).expect("copy into the store");
        self.storage.put(&copy, key).expect("store");
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

fn case(rig: &Rig, out: &Path, ask: Ask<'_>, cases: &mut Vec<Case>, name: &str) {
    let Ask {
        photo: photo_name,
        depth: depth_name,
        orientation,
        resolution,
        pace,
        camera_motion,
        fit,
    } = ask;
    let photo = samples().join(photo_name);
    let media = fetched(photo_name, &std::fs::read(&photo).expect("read the photo"));
    let prefix = format!("ref/{name}");
    let key = input_key(&prefix, 0, media.format);
    rig.store(&photo, &key);
    let depth = depth_name.map(|d| {
        let key = format!("{prefix}/depth.png");
        rig.store(&samples().join(d), &key);
        DepthInput {
            key,
            polarity: DepthPolarity::BrighterIsNearer,
        }
    });
    let job = ClipJob {
        key_prefix: prefix,
        index: 0,
        token: None,
        input: StoredInput {
            index: 0,
            key,
            format: media.format,
            upright: media.upright_dimensions(),
            orientation: media.orientation,
            digest: media.digest,
        },
        camera_motion,
        effect: None,
        orientation,
        resolution,
        engine: Engine::V25,
        depth,
        depth_note: None,
        pace,
        usage: ClipUse::default(),
        look: ClipLook { fit, caption: None },
    };
    rig.kept.lock().expect("kept").clear();
    let clip = rig
        .runtime
        .block_on(rig.renderer.render_clip(&job, &rig.work, &NoObserver))
        .expect("the clip step");
    assert_eq!(clip.depth_fallback, None, "{name}: the depth map is used");
    let kept = std::mem::take(&mut *rig.kept.lock().expect("kept"));
    assert_eq!(
        kept.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        FRAMES,
        "{name}: the frames the tap kept"
    );
    let files: Vec<String> = FRAMES
        .iter()
        .map(|n| format!("{name}-{n:03}.yuv"))
        .collect();
    for (file, (_, frame)) in files.iter().zip(&kept) {
        std::fs::write(out.join(file), frame).expect("write a frame");
    }
    let (width, height) = resolution.dimensions(orientation);
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
        width,
        height,
        motion: clip.motion.expect("the camera's motion").as_camera_motion(),
        frames: FRAMES.to_vec(),
        files,
    });
}

fn main() {
    use CameraMotion::{Auto, OrbitLeft, OrbitRight, PushIn, PushOut};
    use Orientation::{Landscape, Portrait};
    let out = PathBuf::from(std::env::args().nth(1).expect("OUT_DIR"));
    std::fs::create_dir_all(&out).expect("create OUT_DIR");
    let rig = Rig::new(&out);
    let mut cases = Vec::new();
    let motions = [PushIn, PushOut, OrbitLeft, OrbitRight];
    for orientation in [Landscape, Portrait] {
        for motion in motions {
            let o = orientation.as_str();
            let m = motion.as_str();
            // Flat: a JPEG photograph, framed as `auto` frames it.
            let flat = Ask::new("house-colonial.jpg", orientation, motion);
            case(&rig, &out, flat, &mut cases, &format!("flat-{o}-{m}"));
            // Depth: the PNG interior with its map.
            let depth = Ask {
                depth: Some("living-room-depth.png"),
                ..Ask::new("living-room.png", orientation, motion)
            };
            case(&rig, &out, depth, &mut cases, &format!("depth-{o}-{m}"));
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
        case(&rig, &out, ask, &mut cases, name);
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
    std::fs::remove_dir_all(&rig.work).expect("remove the work folder");
}
