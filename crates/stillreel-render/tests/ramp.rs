//! The speed ramp shows: across each cut of a branded video with the ramp, the mean
//! frame-to-frame motion of the decoded pictures in the second around the cut is at least 3×
//! that at the same place of the video made without the ramp (docs/EFFECTS.md, "Speed ramp").
//!
//! Three bundled photographs, one video per pace: eased clips (`Pace::Engine`, what a video
//! without the ramp gets) and clips that keep moving through their ends (`Pace::Through`, what
//! a video with the ramp gets), the latter branded with the ramp only.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{Route, TestServer};
use stillreel_camera::geometry::clip_plan::Pace;
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution, Transition};
use stillreel_effects::ramp::RampPlan;
use stillreel_render::{
    AllowList, BrandJob, ClipRequest, FetchConfig, Fetcher, LocalStorage, NoObserver, RenderConfig,
    Renderer, VideoJob,
};

/// Decoded frames are compared at this size (grey): enough to see a camera move of a pixel at
/// 720p, small enough to decode fast.
const W: u32 = 320;
const H: u32 = 180;
/// Frames on each side of a cut: "the second around the cut" at 30 fps.
const HALF: usize = 15;
const PHOTOS: [&str; 3] = [
    "house-colonial.jpg",
    "house-bungalow.jpg",
    "house-modern.webp",
];
const MOTIONS: [CameraMotion; 3] = [
    CameraMotion::PushIn,
    CameraMotion::OrbitLeft,
    CameraMotion::PushOut,
];

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name)
}

/// Mean absolute difference of consecutive frames over the second around the cut whose first
/// frame is `cut`, leaving out the pair that spans the cut (a change of picture, not motion).
fn motion_around(frames: &[Vec<u8>], cut: usize) -> f64 {
    let pairs: Vec<f64> = (cut - HALF + 1..cut + HALF)
        .filter(|&i| i != cut)
        .map(|i| common::mean_abs_diff(&frames[i - 1], &frames[i]))
        .collect();
    pairs.iter().sum::<f64>() / pairs.len() as f64
}

/// The frame pair with the largest difference near `cut` is the cut itself.
fn assert_cut_at(frames: &[Vec<u8>], cut: usize) {
    let diff = |i: usize| common::mean_abs_diff(&frames[i - 1], &frames[i]);
    let peak = (cut - HALF + 1..cut + HALF)
        .max_by(|&a, &b| diff(a).total_cmp(&diff(b)))
        .expect("pairs");
    assert_eq!(peak, cut, "the cut is where the plan puts it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ramp_triples_the_motion_around_each_cut() {
    let dir = tempfile::tempdir().expect("temp dir");
    let routes = PHOTOS
        .iter()
        .map(|name| {
            let content_type = if name.ends_with(".webp") {
                "image/webp"
            } else {
                "image/jpeg"
            };
            (
                format!("/{name}"),
                Route::Body {
                    content_type,
                    body: Arc::new(std::fs::read(sample(name)).expect("sample")),
                },
            )
        })
        .collect::<Vec<_>>();
    let server = TestServer::start(
        "127.0.0.1",
        routes
            .iter()
            .map(|(p, r)| (p.as_str(), r.clone()))
            .collect(),
    )
    .await;
    let fetch = FetchConfig {
        allow: AllowList::parse("127.0.0.1").expect("allow"),
        ..FetchConfig::default()
    };
    let store = dir.path().join("store");
    let renderer = Renderer::new(
        RenderConfig::default(),
        Fetcher::new(fetch, None),
        Arc::new(LocalStorage::new(&store, "/files")),
    );
    let video = |pace: Pace, prefix: &str| VideoJob {
        pace,
        branded_intro: false,
        branded_sound: None,
        key_prefix: prefix.into(),
        clips: PHOTOS
            .iter()
            .zip(MOTIONS)
            .map(|(name, m)| ClipRequest {
                depth: None,
                image_url: server.url(&format!("/{name}")),
                camera_motion: m,
                effect: None,
            })
            .collect(),
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        engine: Engine::V25,
        audio_url: None,
        transition: Transition::Cut,
    };
    let work = dir.path().join("work");
    let eased = renderer
        .render_video(
            &video(Pace::Engine, "videos/eased"),
            &work.join("e"),
            &NoObserver,
        )
        .await
        .expect("eased video");
    let through = renderer
        .render_video(
            &video(Pace::Through, "videos/through"),
            &work.join("t"),
            &NoObserver,
        )
        .await
        .expect("through video");
    let brand = BrandJob {
        key_prefix: "videos/through".into(),
        main_key: through.key.clone(),
        clip_frames: BrandJob::standard_clips(3),
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        intro: None,
        outro: None,
        speed_ramp: true,
        clip_pace: Pace::Through,
        music: None,
        sound_key: None,
    };
    let ramped = renderer
        .render_branded(&brand, &work.join("b"), &NoObserver)
        .await
        .expect("branded with the ramp");
    assert!(ramped.speed_ramp, "the ramp took effect");

    let plain = common::frames_gray(&store.join(&eased.key), W, H);
    let unramped = common::frames_gray(&store.join(&through.key), W, H);
    let fast = common::frames_gray(&store.join(&ramped.video.key), W, H);
    let plan = RampPlan::new(&BrandJob::standard_clips(3), 30).expect("plan");
    let kept = plan.kept_frames();
    assert_eq!(fast.len(), kept.len(), "the ramp's frames, nothing else");
    for cut in [150_usize, 300] {
        // Where the cut's first frame lands in the ramped video.
        let at = kept
            .iter()
            .position(|&n| n as usize == cut)
            .expect("the cut's frame is kept");
        assert_cut_at(&plain, cut);
        assert_cut_at(&fast, at);
        let (without, paced, with) = (
            motion_around(&plain, cut),
            motion_around(&unramped, cut),
            motion_around(&fast, at),
        );
        eprintln!(
            "cut at {cut} s/30: eased, no ramp {without:.3}; through, no ramp {paced:.3}; \
             through + ramp {with:.3} (×{:.1})",
            with / without
        );
        assert!(
            with >= 3.0 * without,
            "cut {cut}: {with:.3} with the ramp vs {without:.3} without"
        );
        // The ramp itself accelerates: faster than the same clips at normal speed.
        assert!(
            with >= 1.5 * paced,
            "cut {cut}: {with:.3} ramped vs {paced:.3} at normal speed"
        );
    }
}
