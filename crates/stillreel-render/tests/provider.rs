//! The generative path end to end against a **test double** provider (`provider_double`): the
//! request reaches it with the effect, its config, the picture and the token; the clip is
//! rendered from its answer (ffprobe facts, the tint is visible); timeouts, garbage and refusals
//! fail the video cleanly with `render_failed` on `image_inputs[i].vfx`.

mod common;
mod provider_double;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use common::{Route, TestServer, num, probe, stream};
use provider_double::{Mode, ProviderDouble};
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution, Vfx};
use stillreel_providers::{Provider, ProviderConfig, ProviderError};
use stillreel_render::NoObserver;
use stillreel_render::{
    AllowList, ClipRequest, FetchConfig, Fetcher, JobFailure, LocalStorage, RenderConfig, Renderer,
    VideoJob, vfx_stage,
};

struct Env {
    dir: tempfile::TempDir,
    images: TestServer,
}

impl Env {
    async fn new() -> Env {
        let dir = tempfile::tempdir().expect("temp dir");
        let picture = common::picture(dir.path(), "house.jpg", 960, 540);
        let images = TestServer::start(
            "127.0.0.1",
            vec![(
                "/house.jpg",
                Route::Body {
                    content_type: "image/jpeg",
                    body: Arc::new(std::fs::read(picture).expect("read")),
                },
            )],
        )
        .await;
        Env { dir, images }
    }

    fn renderer(&self, provider: Option<&ProviderDouble>, timeout_secs: u64) -> Renderer {
        let fetch = FetchConfig {
            allow: AllowList::parse("127.0.0.1").expect("allow"),
            ..FetchConfig::default()
        };
        let storage = Arc::new(LocalStorage::new(self.dir.path().join("store"), "/files"));
        let provider = provider.map(|p| {
            let config = ProviderConfig::from_values(
                Some(&p.url),
                Some("s3cret"),
                Some(&timeout_secs.to_string()),
            )
            .expect("config")
            .expect("some");
            Provider::new(config).expect("client")
        });
        Renderer::new(RenderConfig::default(), Fetcher::new(fetch, None), storage)
            .with_provider(provider)
    }

    fn job(&self, vfx: &Vfx) -> VideoJob {
        VideoJob {
            pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
            branded_intro: false,
            branded_sound: None,
            key_prefix: "videos/p".into(),
            clips: vec![ClipRequest {
                depth: None,
                image_url: self.images.url("/house.jpg"),
                camera_motion: CameraMotion::PushIn,
                effect: Some(vfx_stage(vfx)),
            }],
            orientation: Orientation::Landscape,
            resolution: Resolution::P720,
            engine: Engine::V25,
            audio_url: None,
            transition: stillreel_core::Transition::Cut,
        }
    }

    fn work(&self, name: &str) -> PathBuf {
        self.dir.path().join("work").join(name)
    }
}

fn staging() -> Vfx {
    serde_json::from_str(
        r#"{"type":"virtual-staging","config":{"room_type":"living","staging_style":"modern"}}"#,
    )
    .expect("vfx")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_still_becomes_a_finished_clip() {
    let env = Env::new().await;
    let double = ProviderDouble::start(Mode::Tint).await;
    let renderer = env.renderer(Some(&double), 30);
    assert_eq!(renderer.available_vfx().len(), 13);
    let video = renderer
        .render_video(&env.job(&staging()), &env.work("ok"), &NoObserver)
        .await
        .expect("rendered through the provider");
    let clip = env.dir.path().join("store").join(&video.clips[0].key);
    let p = probe(&clip);
    let v = stream(&p, "video");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(1280), Some(720))
    );
    assert_eq!(num(&v["nb_read_frames"]), 150.0);
    assert_eq!(v["pix_fmt"], "yuv420p");
    // Clips are silent: the stitch makes the audio, once, for the whole video.
    assert!(
        p["streams"]
            .as_array()
            .expect("streams")
            .iter()
            .all(|s| s["codec_type"] != "audio")
    );
    let whole = probe(&env.dir.path().join("store").join(&video.key));
    assert_eq!(stream(&whole, "audio")["sample_rate"], "48000");
    // The clip is made from the provider's answer: red tint (testsrc2 is colourful otherwise).
    let [r, g, b] = common::mean_rgb(&clip, 75);
    assert!(r > 1.8 * g && r > 1.8 * b, "tinted: {r} {g} {b}");

    let seen = double.seen.lock().expect("seen").clone();
    assert_eq!(seen.authorization.as_deref(), Some("Bearer s3cret"));
    let body = seen.body.expect("json body");
    assert_eq!(body["version"], 1);
    assert_eq!(body["effect"], "virtual-staging");
    assert_eq!(body["config"]["room_type"], "living");
    assert_eq!(body["image"]["media_type"], "image/jpeg");
    assert_eq!(body["output"]["width"], 1280);
    assert_eq!(body["output"]["seconds"], 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_clip_is_conformed_to_a_standard_clip() {
    let env = Env::new().await;
    let double = ProviderDouble::start(Mode::Clip).await;
    let video = env
        .renderer(Some(&double), 30)
        .render_video(
            &env.job(&Vfx::SpinCeilingFan),
            &env.work("clip"),
            &NoObserver,
        )
        .await
        .expect("rendered from the provider's clip");
    let clip = env.dir.path().join("store").join(&video.clips[0].key);
    let p = probe(&clip);
    let v = stream(&p, "video");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(1280), Some(720))
    );
    // A 1 s, 25 fps answer becomes 150 frames at 30 fps (last frame held).
    assert_eq!(num(&v["nb_read_frames"]), 150.0);
    assert_eq!(v["r_frame_rate"], "30/1");
    let [r, g, _] = common::mean_rgb(&clip, 140);
    assert!(r > 1.8 * g, "tinted clip: {r} {g}");
}

fn provider_error(result: Result<stillreel_render::StoredVideo, JobFailure>) -> ProviderError {
    match result {
        Err(e @ JobFailure::Provider { .. }) => {
            assert_eq!(e.code(), "render_failed");
            assert_eq!(e.field(), Some("image_inputs[0].vfx"));
            assert!(!e.user_message().contains("127.0.0.1"), "no address leaks");
            match e {
                JobFailure::Provider { error, .. } => error,
                _ => unreachable!("matched above"),
            }
        }
        other => panic!("expected a provider failure, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn provider_failures_are_clean() {
    let env = Env::new().await;

    // Times out: the double sleeps 4 s, the client waits 1 s.
    let slow = ProviderDouble::start(Mode::Sleep(Duration::from_secs(4))).await;
    let started = std::time::Instant::now();
    let e = provider_error(
        env.renderer(Some(&slow), 1)
            .render_video(&env.job(&staging()), &env.work("slow"), &NoObserver)
            .await,
    );
    assert_eq!(e, ProviderError::TimedOut(1));
    assert!(e.is_transient());
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "gave up at the timeout"
    );

    // Garbage, and a well-formed answer whose image is not one: permanent.
    for mode in [Mode::Garbage, Mode::NotAnImage] {
        let bad = ProviderDouble::start(mode).await;
        let e = provider_error(
            env.renderer(Some(&bad), 10)
                .render_video(
                    &env.job(&Vfx::SpinCeilingFan),
                    &env.work("bad"),
                    &NoObserver,
                )
                .await,
        );
        assert!(matches!(e, ProviderError::Invalid(_)), "{mode:?}: {e:?}");
        assert!(!e.is_transient());
    }

    // A refusal with the provider's error object: transient for 503.
    let busy = ProviderDouble::start(Mode::Unavailable).await;
    let e = provider_error(
        env.renderer(Some(&busy), 10)
            .render_video(&env.job(&staging()), &env.work("busy"), &NoObserver)
            .await,
    );
    assert!(
        matches!(&e, ProviderError::Refused { status: 503, code: Some(c), .. } if c == "overloaded"),
        "{e:?}"
    );
    assert!(e.is_transient());

    // No provider at all.
    let renderer = env.renderer(None, 10);
    assert_eq!(renderer.available_vfx().len(), 10);
    let e = provider_error(
        renderer
            .render_video(&env.job(&staging()), &env.work("none"), &NoObserver)
            .await,
    );
    assert!(matches!(e, ProviderError::NotConfigured(_)));
}
