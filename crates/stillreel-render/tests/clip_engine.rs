//! The generative engine (`ai_engine: "generative"`) through the renderer, against the Cog
//! **test double** (`model_host_double`; we cannot run a real image-to-video model here): each
//! clip is the clip role's answer for the photo and its camera motion, conformed (30 fps,
//! exactly 150 frames, no sound, the clip's size), a procedural effect is drawn over it, the
//! model is asked for the move the clip records, and a second video of the same photo and
//! motion makes no second call. Without the clip role a generative clip fails, naming it.

mod common;
mod model_host_double;

use std::sync::Arc;
use std::time::Duration;

use model_host_double::{Flavor, MAGENTA, ModelHostDouble, Payload, Script};
use stillreel_camera::geometry::clip_plan::Motion;
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution, Vfx};
use stillreel_providers::{
    Model, Protocol, ProviderError, ProviderRoles, Providers, Role, RoleConfig,
};
use stillreel_render::{
    AllowList, ClipRequest, FetchConfig, Fetcher, JobFailure, LocalStorage, NoObserver,
    RenderConfig, Renderer, VideoJob, vfx_stage,
};

fn clip_role(double: &ModelHostDouble) -> RoleConfig {
    RoleConfig {
        role: Role::Clip,
        protocol: Protocol::Cog,
        url: double.base.clone(),
        token: None,
        model: Some(Model::Named("wan-2.2-i2v".into())),
        input: None,
        prompt: None,
        timeout: Duration::from_secs(60),
    }
}

fn renderer(dir: &std::path::Path, roles: ProviderRoles) -> Renderer {
    let fetch = FetchConfig {
        allow: AllowList::parse("127.0.0.1").expect("allow"),
        ..FetchConfig::default()
    };
    let storage = Arc::new(LocalStorage::new(dir.join("store"), "/files"));
    Renderer::new(RenderConfig::default(), Fetcher::new(fetch, None), storage)
        .with_providers(Providers::new(roles).expect("clients"))
}

fn job(url: String) -> VideoJob {
    let sketch: Vfx = serde_json::from_str(r#"{"type":"pencil-sketch"}"#).expect("vfx");
    let twilight: Vfx = serde_json::from_str(r#"{"type":"day-to-twilight"}"#).expect("vfx");
    VideoJob {
        key_prefix: "videos/g".into(),
        clips: vec![
            ClipRequest {
                depth: None,
                image_url: url.clone(),
                camera_motion: CameraMotion::OrbitLeft,
                effect: None,
            },
            ClipRequest {
                depth: None,
                image_url: url.clone(),
                camera_motion: CameraMotion::PushOut,
                effect: Some(vfx_stage(&sketch)),
            },
            // Its masks come from the photo, held still (the model made the motion).
            ClipRequest {
                depth: None,
                image_url: url,
                camera_motion: CameraMotion::PushIn,
                effect: Some(vfx_stage(&twilight)),
            },
        ],
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        engine: Engine::Generative,
        audio_url: None,
        transition: stillreel_core::Transition::Cut,
        pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
        branded_intro: false,
        branded_sound: None,
    }
}

async fn photo_server(dir: &std::path::Path) -> common::TestServer {
    let picture = common::picture(dir, "house.jpg", 960, 540);
    common::TestServer::start(
        "127.0.0.1",
        vec![(
            "/house.jpg",
            common::Route::Body {
                content_type: "image/jpeg",
                body: Arc::new(std::fs::read(picture).expect("read")),
            },
        )],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generative_clips_are_the_clip_models_answers_conformed_and_reused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let images = photo_server(dir.path()).await;
    // The double answers a 30 s, 25 fps magenta clip with a sound track.
    let double = ModelHostDouble::start(Flavor::Cog, Script::Succeed, Payload::LongClip).await;
    let renderer = renderer(dir.path(), ProviderRoles::none().with(clip_role(&double)));
    assert_eq!(
        renderer.available_engines(),
        vec![Engine::V24, Engine::V25, Engine::Generative]
    );
    let video = renderer
        .render_video(
            &job(images.url("/house.jpg")),
            &dir.path().join("w1"),
            &NoObserver,
        )
        .await
        .expect("rendered through the Cog double");
    // One call per clip: the same photo, asked for three moves.
    assert_eq!(double.creates(), 3);
    let prompts: Vec<String> = double
        .seen()
        .iter()
        .filter(|s| s.method == "POST")
        .map(|s| {
            s.json()["input"]["prompt"]
                .as_str()
                .expect("prompt")
                .to_owned()
        })
        .collect();
    assert!(
        prompts.iter().any(|p| p.contains("orbits to the left")),
        "{prompts:?}"
    );
    assert!(
        prompts.iter().any(|p| p.contains("pulls back")),
        "{prompts:?}"
    );
    // The clips record the move the model was asked for.
    assert_eq!(video.clips[0].motion, Some(Motion::OrbitLeft));
    assert_eq!(video.clips[1].motion, Some(Motion::PushOut));
    assert_eq!(video.clips[2].motion, Some(Motion::PushIn));
    for clip in &video.clips {
        let path = dir.path().join("store").join(&clip.key);
        let p = common::probe(&path);
        let v = common::stream(&p, "video");
        assert_eq!(common::num(&v["nb_read_frames"]), 150.0);
        assert_eq!(v["r_frame_rate"], "30/1");
        assert_eq!(
            (v["width"].as_u64(), v["height"].as_u64()),
            (Some(1280), Some(720))
        );
        assert!(
            p["streams"]
                .as_array()
                .expect("streams")
                .iter()
                .all(|s| s["codec_type"] != "audio"),
            "a clip has no sound"
        );
    }
    // The plain clip is the model's picture, not the colourful photo; the sketch is drawn
    // over the model's clip (a flat magenta has no edges to sketch: it turns pale).
    let plain = common::mean_rgb(&dir.path().join("store").join(&video.clips[0].key), 140);
    for (got, want) in plain.iter().zip(MAGENTA) {
        assert!(
            (got - f64::from(want)).abs() < 20.0,
            "{plain:?} vs {MAGENTA:?}"
        );
    }
    let sketched = common::mean_rgb(&dir.path().join("store").join(&video.clips[1].key), 75);
    assert!(
        (sketched[1] - f64::from(MAGENTA[1])).abs() > 40.0,
        "the effect over the model's clip: {sketched:?}"
    );
    let dusk = common::mean_rgb(&dir.path().join("store").join(&video.clips[2].key), 149);
    assert!(
        dusk.iter().sum::<f64>() < 0.6 * plain.iter().sum::<f64>(),
        "dusk over the model's clip: {dusk:?} against {plain:?}"
    );

    // The same photo and motions again: the stored answers, no second call.
    renderer
        .render_video(
            &job(images.url("/house.jpg")),
            &dir.path().join("w2"),
            &NoObserver,
        )
        .await
        .expect("second video");
    assert_eq!(double.creates(), 3, "no second provider call");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generative_clip_without_the_clip_role_fails_naming_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let images = photo_server(dir.path()).await;
    let renderer = renderer(dir.path(), ProviderRoles::none());
    assert_eq!(renderer.available_engines(), vec![Engine::V24, Engine::V25]);
    let e = renderer
        .render_video(
            &job(images.url("/house.jpg")),
            &dir.path().join("w"),
            &NoObserver,
        )
        .await
        .expect_err("no clip role");
    match e {
        JobFailure::Provider { field, error, .. } => {
            // Both clips fail; they render two at a time, so either may be the one reported.
            assert!(
                field == "image_inputs[0]" || field == "image_inputs[1]",
                "{field}"
            );
            assert_eq!(error, ProviderError::ClipNotConfigured);
        }
        other => panic!("{other:?}"),
    }
}
