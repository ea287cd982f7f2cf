//! The branded render with the speed ramp, by parts, on real ffmpeg output: a main video whose
//! clips are keyed where the ramp begins and ends gets only the intro's span, the 72 frames
//! around each cut and the outro card encoded; everything else is the main video's own
//! packets. It has the plan's frame count and length, its sound runs through the outro and
//! ends with the picture, and it looks like the one-pass render of the same plan (PSNR ≥ 35 dB
//! on every frame). A main video without those keyframes is rendered in one pass, correctly.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use common::{Route, TestServer, num, probe, stream};
use stillreel_camera::geometry::clip_plan::Pace;
use stillreel_core::catalog::builtin_templates;
use stillreel_core::types::{TemplateSlot, TemplateValue};
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution, Transition};
use stillreel_effects::template::{FieldValue, Frame, intro_overlay, outro_card};
use stillreel_render::brand::brand_command;
use stillreel_render::ffmpeg::command::Encoding;
use stillreel_render::{
    AllowList, BrandJob, BrandMusic, BrandPlan, BrandSlot, ClipRequest, FetchConfig, Fetcher,
    LocalStorage, NoObserver, RenderConfig, Renderer, VideoJob,
};

const FRAME: Frame = Frame {
    width: 1280,
    height: 720,
    fps: 30,
};
const HEADLINE: &str = "Just Listed";
const BROKERAGE: &str = "Acme Realty";

fn slot(id: &str, key: &str, value: &str) -> Option<BrandSlot> {
    let slot = TemplateSlot {
        template: id.into(),
        config: BTreeMap::from([(
            key.to_owned(),
            TemplateValue::Text {
                value: value.into(),
            },
        )]),
    };
    BrandSlot::resolve(&slot, builtin_templates())
}

/// The plan the renderer makes for three clips with these templates (text only, no images).
fn plan(ramp: bool) -> BrandPlan {
    let template = |id: &str| {
        builtin_templates()
            .iter()
            .find(|t| t.id == id)
            .expect("template")
    };
    let value = |k: &str, v: &str| BTreeMap::from([(k.to_owned(), FieldValue::Text(v.into()))]);
    let intro = intro_overlay(
        template("intro-title-card"),
        &value("headline", HEADLINE),
        FRAME,
    )
    .expect("intro");
    let outro = outro_card(
        template("outro-minimal"),
        &value("brokerage", BROKERAGE),
        FRAME,
    )
    .expect("outro");
    BrandPlan::new(
        &BrandJob::standard_clips(3),
        FRAME,
        ramp,
        Some((intro, vec![])),
        Some((outro, vec![])),
    )
}

/// Per-frame PSNR (average over the planes) of `a` against `b`, which must have as many frames.
fn psnr_per_frame(a: &Path, b: &Path) -> Vec<f64> {
    let stats = a.with_extension("psnr.txt");
    common::ffmpeg(&[
        "-i",
        a.to_str().expect("utf-8"),
        "-i",
        b.to_str().expect("utf-8"),
        "-lavfi",
        &format!("[0:v][1:v]psnr=stats_file={}", stats.display()),
        "-f",
        "null",
        "-",
    ]);
    std::fs::read_to_string(&stats)
        .expect("psnr stats")
        .lines()
        .map(|l| {
            let v = l
                .split_whitespace()
                .find_map(|f| f.strip_prefix("psnr_avg:"))
                .expect("psnr_avg");
            if v == "inf" {
                f64::INFINITY
            } else {
                v.parse().expect("psnr")
            }
        })
        .collect()
}

/// Frame count, video and audio lengths (s).
fn lengths(path: &Path) -> (u32, f64, f64) {
    let p = probe(path);
    let frames = num(&stream(&p, "video")["nb_read_frames"]) as u32;
    (
        frames,
        num(&stream(&p, "video")["duration"]),
        num(&stream(&p, "audio")["duration"]),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ramped_branded_video_is_encoded_only_around_the_cuts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let media = dir.path().join("media");
    std::fs::create_dir_all(&media).expect("media");
    let sample = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../samples")
            .join(name)
    };
    let body = |bytes: Vec<u8>, t: &'static str| Route::Body {
        content_type: t,
        body: Arc::new(bytes),
    };
    let read = |p: std::path::PathBuf| std::fs::read(p).expect("read");
    let server = TestServer::start(
        "127.0.0.1",
        vec![
            (
                "/a.jpg",
                body(read(sample("house-colonial.jpg")), "image/jpeg"),
            ),
            (
                "/b.jpg",
                body(read(sample("house-bungalow.jpg")), "image/jpeg"),
            ),
            (
                "/c.webp",
                body(read(sample("house-modern.webp")), "image/webp"),
            ),
            (
                "/music.ogg",
                body(read(common::tone(&media, "music.ogg", 20.0)), "audio/ogg"),
            ),
        ],
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
    // Created to be branded with an intro and the ramp: clips paced through their ends, keyed
    // at the ramp's boundaries (frames 36 and 114) and the first also where the intro ends.
    let job = VideoJob {
        pace: Pace::Through,
        branded_intro: true,
        branded_sound: None,
        key_prefix: "videos/r".into(),
        clips: [
            ("/a.jpg", CameraMotion::PushIn),
            ("/b.jpg", CameraMotion::OrbitLeft),
            ("/c.webp", CameraMotion::PushOut),
        ]
        .into_iter()
        .map(|(path, m)| ClipRequest {
            depth: None,
            image_url: server.url(path),
            camera_motion: m,
            effect: None,
        })
        .collect(),
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        engine: Engine::V25,
        audio_url: Some(server.url("/music.ogg")),
        transition: Transition::Cut,
    };
    let work = dir.path().join("work");
    let main = renderer
        .render_video(&job, &work.join("main"), &NoObserver)
        .await
        .expect("main video");
    let main_path = store.join(&main.key);
    let key_positions = |path: &Path| -> Vec<usize> {
        common::keyframes(path)
            .iter()
            .enumerate()
            .filter_map(|(i, &k)| k.then_some(i))
            .collect()
    };
    let clip_keys = key_positions(&store.join(&main.clips[1].key));
    assert!(
        clip_keys.contains(&36) && clip_keys.contains(&114),
        "ramp keyframes: {clip_keys:?}"
    );

    let brand = BrandJob {
        key_prefix: "videos/r".into(),
        main_key: main.key.clone(),
        clip_frames: BrandJob::standard_clips(3),
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        intro: slot("intro-title-card", "headline", HEADLINE),
        outro: slot("outro-minimal", "brokerage", BROKERAGE),
        speed_ramp: true,
        clip_pace: Pace::Through,
        music: Some(BrandMusic::Url(server.url("/music.ogg"))),
        sound_key: None,
    };
    let started = std::time::Instant::now();
    let ramped = renderer
        .render_branded(&brand, &work.join("b"), &NoObserver)
        .await
        .expect("branded with the ramp");
    eprintln!("ramped branded render by parts: {:?}", started.elapsed());
    assert!(ramped.speed_ramp);
    let ramped_path = store.join(&ramped.video.key);
    let plan = plan(true);
    let total = plan.total_frames();
    assert_eq!(total, 450 - 2 * 36 + 90);
    let (frames, vd, ad) = lengths(&ramped_path);
    assert_eq!(frames, total, "the plan's frames");
    let planned = f64::from(total) / 30.0;
    assert!(
        (vd - planned).abs() < 0.002,
        "video {vd} s, planned {planned} s"
    );
    assert!((ad - vd).abs() <= 0.025, "A/V lengths {vd} vs {ad}");
    assert!((ramped.video.seconds - planned).abs() < 1e-9);
    // Decoded at a constant frame rate (timestamps from 0, one frame apart): no frame added.
    let decoded = common::frames_gray(&ramped_path, 64, 36);
    assert_eq!(decoded.len() as u32, total, "decoded frames");
    // The music plays through the outro card (from 12.6 s) and fades out with it.
    let (start, end) = (
        common::mean_volume(&ramped_path, 12.6, 1.0),
        common::mean_volume(&ramped_path, 15.2, 0.4),
    );
    assert!(
        start > -30.0 && start - end > 12.0,
        "music under the outro: {start} dB then {end} dB"
    );

    // Copied: the main video's own packets wherever the ramp plays at normal speed after the
    // intro (source [90, 114), [186, 264), [336, 450)), in decoding order.
    let kept = plan.ramp.as_ref().expect("ramp").kept_frames();
    let out = |n: usize| kept.iter().position(|&k| k as usize == n).expect("kept");
    let ours = common::packet_hashes(&ramped_path);
    let theirs = common::packet_hashes(&main_path);
    let main_keys = common::keyframes(&main_path);
    let mut copied = 0;
    for (from, to) in [(90, 114), (186, 264), (336, 450)] {
        for n in (from..to).filter(|&n| !main_keys[n]) {
            assert_eq!(ours[out(n)], theirs[n], "source frame {n} copied");
            copied += 1;
        }
    }
    assert!(copied > 200, "{copied} packets copied");
    // Encoded: the intro's 90, 36 around each cut and the outro's 90.
    let own = (0..kept.len())
        .filter(|&i| !theirs.contains(&ours[i]))
        .count();
    assert!(own >= 90 + 2 * 36 - 4, "{own} frames encoded");

    // The one-pass render of the same plan (what the ramp cost before), for comparison.
    let one = dir.path().join("one");
    std::fs::create_dir_all(&one).expect("dir");
    std::fs::copy(&main_path, one.join("main.mp4")).expect("copy main");
    let cmd = brand_command(
        &plan,
        Path::new("main.mp4"),
        None,
        &Encoding::default(),
        Path::new("one.mp4"),
    )
    .expect("one-pass command");
    let status = Command::new("ffmpeg")
        .args(&cmd.args)
        .current_dir(&one)
        .output()
        .expect("run one-pass ffmpeg");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let psnr = psnr_per_frame(&ramped_path, &one.join("one.mp4"));
    assert_eq!(psnr.len() as u32, total);
    let worst = psnr.iter().copied().fold(f64::INFINITY, f64::min);
    eprintln!("PSNR against the one-pass render: worst frame {worst:.1} dB");
    assert!(worst >= 35.0, "worst frame {worst:.1} dB");

    // Fallback: the same main video with a single keyframe (as if encoded elsewhere) leaves
    // nothing to copy; the one-pass render makes the same video.
    let single = store.join("videos/r/single-key.mp4");
    common::ffmpeg(&[
        "-i",
        main_path.to_str().expect("utf-8"),
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-crf",
        "16",
        "-g",
        "9999",
        "-sc_threshold",
        "0",
        "-c:a",
        "copy",
        single.to_str().expect("utf-8"),
    ]);
    assert_eq!(key_positions(&single), [0]);
    let fallback = renderer
        .render_branded(
            &BrandJob {
                key_prefix: "videos/r-single".into(),
                main_key: "videos/r/single-key.mp4".into(),
                ..brand.clone()
            },
            &work.join("f"),
            &NoObserver,
        )
        .await
        .expect("branded in one pass");
    assert!(fallback.speed_ramp);
    let fallback_path = store.join(&fallback.video.key);
    let (frames, fvd, fad) = lengths(&fallback_path);
    assert_eq!(frames, total);
    assert!((fvd - planned).abs() < 0.002, "video {fvd} s");
    assert!((fad - fvd).abs() <= 0.025, "A/V lengths {fvd} vs {fad}");
    let single_packets = common::packet_hashes(&single);
    let shared = common::packet_hashes(&fallback_path)
        .iter()
        .filter(|p| single_packets.contains(p))
        .count();
    assert_eq!(shared, 0, "nothing copied: encoded in one pass");
    let worst = psnr_per_frame(&fallback_path, &one.join("one.mp4"))
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    assert!(worst >= 35.0, "fallback: worst frame {worst:.1} dB");
}
