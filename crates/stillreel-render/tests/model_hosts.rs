//! The three model-host protocols against **test doubles** (`model_host_double`): Replicate
//! (`Prefer: wait`, polling, rate limits, quota, failed and canceled predictions, expired
//! outputs, a hang), a Cog container (`409` busy, `data:` outputs) and OpenAI image edits; and
//! the answers a host may get wrong (HTML labelled PNG, a 30 s clip, a colourised depth map,
//! 100 MB), each refused or conformed. Then a whole video through the renderer whose staged
//! clip shows the double's picture, and a second one that reuses the stored answer.

mod common;
mod model_host_double;

use std::sync::Arc;
use std::time::{Duration, Instant};

use model_host_double::{Flavor, MAGENTA, ModelHostDouble, Payload, Script};
use stillreel_core::media::MediaFormat;
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution, Vfx};
use stillreel_providers::{
    Model, OutputSpec, Protocol, ProviderError, ProviderOutput, ProviderRoles, Providers, Role,
    RoleClient, RoleConfig, RoleRequest,
};
use stillreel_render::{
    AllowList, ClipJob, ClipRequest, FetchConfig, Fetcher, LocalStorage, MadeDepth, NoObserver,
    PrepareJob, RenderConfig, Renderer, VideoJob, vfx_stage,
};

fn config(double: &ModelHostDouble, role: Role, protocol: Protocol, secs: u64) -> RoleConfig {
    RoleConfig {
        role,
        protocol,
        url: double.base.clone(),
        token: (protocol != Protocol::Cog).then(|| "r8_doubletoken".to_owned()),
        model: match protocol {
            Protocol::Replicate => Some(Model::Replicate {
                owner: "black-forest-labs".into(),
                name: "flux-kontext-pro".into(),
                version: None,
            }),
            Protocol::OpenAi => Some(Model::Named("gpt-image-1".into())),
            _ => None,
        },
        input: None,
        prompt: None,
        timeout: Duration::from_secs(secs),
    }
}

fn photo() -> Vec<u8> {
    let dir = tempfile::tempdir().expect("dir");
    let path = common::picture(dir.path(), "room.jpg", 960, 540);
    std::fs::read(path).expect("read")
}

fn staging() -> Vfx {
    serde_json::from_str(
        r#"{"type":"virtual-staging","config":{"room_type":"living","staging_style":"modern"}}"#,
    )
    .expect("vfx")
}

async fn call(
    double: &ModelHostDouble,
    role: Role,
    protocol: Protocol,
    secs: u64,
) -> Result<ProviderOutput, ProviderError> {
    let image = photo();
    let vfx = staging();
    let client = RoleClient::new(config(double, role, protocol, secs)).expect("client");
    client
        .call(&RoleRequest {
            image: &image,
            format: MediaFormat::Jpeg,
            size: (960, 540),
            vfx: (role == Role::Staging).then_some(&vfx),
            motion: CameraMotion::PushIn,
            output: OutputSpec {
                width: 1280,
                height: 720,
                fps: 30,
                seconds: 5,
            },
        })
        .await
}

fn still_bytes(output: ProviderOutput) -> Vec<u8> {
    match output {
        ProviderOutput::Image { bytes, .. } => bytes,
        other => panic!("expected a still, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicate_answers_within_prefer_wait() {
    let double = ModelHostDouble::start(Flavor::Replicate, Script::Succeed, Payload::Staged).await;
    let out = call(&double, Role::Staging, Protocol::Replicate, 30).await;
    assert_eq!(still_bytes(out.expect("staged")), double.payload());
    let seen = double.seen();
    let create = &seen[0];
    assert_eq!(
        create.path,
        "/v1/models/black-forest-labs/flux-kontext-pro/predictions"
    );
    assert_eq!(
        create.header("authorization"),
        Some("Bearer r8_doubletoken")
    );
    assert_eq!(create.header("prefer"), Some("wait=30"));
    let input = &create.json()["input"];
    let prompt = input["prompt"].as_str().expect("prompt");
    assert!(
        prompt.contains("living room") && prompt.contains("modern"),
        "{prompt}"
    );
    assert!(
        input["input_image"]
            .as_str()
            .expect("image")
            .starts_with("data:image/jpeg;base64,/9j/")
    );
    // The output is downloaded at once, without the key (another host may serve it).
    let download = seen
        .iter()
        .find(|s| s.path == "/files/output")
        .expect("downloaded");
    assert_eq!(double.polls(), 0);
    // The double's files share its address, so the key goes along; see `download` in the
    // adapter for the rule.
    assert!(download.header("authorization").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicate_slow_prediction_is_polled_until_it_succeeds() {
    let double = ModelHostDouble::start(Flavor::Replicate, Script::Poll(3), Payload::Staged).await;
    let out = call(&double, Role::Staging, Protocol::Replicate, 30).await;
    assert_eq!(still_bytes(out.expect("staged")), double.payload());
    assert_eq!(
        double.polls(),
        4,
        "three processing answers, then succeeded"
    );
    assert_eq!(double.creates(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_are_retried_after_retry_after() {
    let double =
        ModelHostDouble::start(Flavor::Replicate, Script::RateLimited(2), Payload::Staged).await;
    let started = Instant::now();
    let out = call(&double, Role::Staging, Protocol::Replicate, 30).await;
    assert_eq!(still_bytes(out.expect("staged")), double.payload());
    assert_eq!(double.creates(), 3);
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "waited Retry-After twice: {:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quota_and_content_policy_are_permanent_with_their_own_codes() {
    let double = ModelHostDouble::start(Flavor::Replicate, Script::Quota, Payload::Staged).await;
    let e = call(&double, Role::Staging, Protocol::Replicate, 30)
        .await
        .expect_err("quota");
    assert_eq!(e, ProviderError::Quota);
    assert_eq!(e.code(), "provider_quota");
    assert!(!e.is_transient());
    assert_eq!(double.creates(), 1, "a quota refusal is not retried");

    let double =
        ModelHostDouble::start(Flavor::Replicate, Script::ContentPolicy, Payload::Staged).await;
    let e = call(&double, Role::Staging, Protocol::Replicate, 30)
        .await
        .expect_err("nsfw");
    assert_eq!(e.code(), "provider_content_refused");

    let openai = ModelHostDouble::start(Flavor::OpenAi, Script::Quota, Payload::Staged).await;
    let e = call(&openai, Role::Staging, Protocol::OpenAi, 30)
        .await
        .expect_err("quota");
    assert_eq!(e, ProviderError::Quota);
    let openai =
        ModelHostDouble::start(Flavor::OpenAi, Script::ContentPolicy, Payload::Staged).await;
    let e = call(&openai, Role::Staging, Protocol::OpenAi, 30)
        .await
        .expect_err("moderation");
    assert_eq!(e, ProviderError::ContentPolicy);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_canceled_and_expired_predictions_fail_without_leaking() {
    let double = ModelHostDouble::start(Flavor::Replicate, Script::Failed, Payload::Staged).await;
    let e = call(&double, Role::Staging, Protocol::Replicate, 30)
        .await
        .expect_err("failed");
    assert_eq!(e.code(), "provider_failed");
    let text = e.to_string();
    assert!(text.contains("CUDA error: out of memory"), "{text}");
    assert!(
        !text.contains("10.0.0.7") && !text.contains("http"),
        "{text}"
    );

    let double = ModelHostDouble::start(Flavor::Replicate, Script::Canceled, Payload::Staged).await;
    let e = call(&double, Role::Staging, Protocol::Replicate, 30)
        .await
        .expect_err("canceled");
    assert_eq!(
        e,
        ProviderError::ModelFailed("the prediction was canceled".into())
    );

    let double =
        ModelHostDouble::start(Flavor::Replicate, Script::ExpiredOutput, Payload::Staged).await;
    let e = call(&double, Role::Staging, Protocol::Replicate, 30)
        .await
        .expect_err("expired");
    assert!(
        e.to_string().contains("gone before it could be downloaded"),
        "{e}"
    );
    assert!(!e.to_string().contains("127.0.0.1"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hang_stops_at_the_time_limit() {
    let double = ModelHostDouble::start(Flavor::Replicate, Script::Hang, Payload::Staged).await;
    let started = Instant::now();
    let e = call(&double, Role::Staging, Protocol::Replicate, 2)
        .await
        .expect_err("hang");
    assert_eq!(e, ProviderError::TimedOut(2));
    assert!(e.is_transient());
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cog_busy_is_retried_and_data_outputs_decoded() {
    let double = ModelHostDouble::start(Flavor::Cog, Script::Busy(2), Payload::Staged).await;
    let out = call(&double, Role::Staging, Protocol::Cog, 30).await;
    assert_eq!(still_bytes(out.expect("staged")), double.payload());
    assert_eq!(double.creates(), 3);
    let seen = double.seen();
    // The health is read before the role's first prediction.
    assert_eq!(seen[0].path, "/health-check");
    assert_eq!(seen[1].path, "/predictions");
    assert!(seen[1].header("prefer").is_none());
    assert!(seen[1].json()["input"]["prompt"].is_string());
    assert!(
        seen[1].json()["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("stillreel-")),
        "a Cog prediction carries our id, so it can be canceled"
    );

    let cog = config(&double, Role::Staging, Protocol::Cog, 5);
    let health = stillreel_providers::replicate::health_check(&cog);
    assert_eq!(health.url, format!("{}/health-check", double.base));
    let answer = reqwest_get(&health.url).await;
    assert_eq!(
        stillreel_providers::health::parse(&answer, None),
        Ok(stillreel_providers::Health::Ready)
    );

    let failing = ModelHostDouble::start(Flavor::Cog, Script::Failed, Payload::Staged).await;
    let e = call(&failing, Role::Staging, Protocol::Cog, 30)
        .await
        .expect_err("failed");
    assert_eq!(
        e,
        ProviderError::ModelFailed("RuntimeError: model weights missing".into())
    );
}

/// A hosted prediction whose answer lacks `urls.get` is polled at the predictions endpoint
/// with its id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prediction_without_urls_get_is_polled_by_its_id() {
    let double = ModelHostDouble::start(Flavor::Replicate, Script::NoGetUrl, Payload::Staged).await;
    let out = call(&double, Role::Staging, Protocol::Replicate, 30).await;
    assert_eq!(still_bytes(out.expect("staged")), double.payload());
    assert_eq!(double.polls(), 2);
    assert!(double.seen().iter().any(|s| s.path == "/v1/predictions/p1"));
}

async fn reqwest_get(url: &str) -> stillreel_providers::http::Answer {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let driver =
        stillreel_providers::http::Driver::new(reqwest::Client::new(), Duration::from_secs(5));
    driver
        .send(&stillreel_providers::http::Exchange::get(url))
        .await
        .expect("health check")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_edits_answer_the_picture() {
    let double = ModelHostDouble::start(Flavor::OpenAi, Script::Succeed, Payload::Staged).await;
    let out = call(&double, Role::Staging, Protocol::OpenAi, 30).await;
    assert_eq!(still_bytes(out.expect("edited")), double.payload());
    let seen = double.seen();
    assert_eq!(seen[0].path, "/v1/images/edits");
    assert!(
        seen[0]
            .header("content-type")
            .is_some_and(|c| c.starts_with("multipart/form-data; boundary="))
    );
    let form = String::from_utf8_lossy(&seen[0].body);
    assert!(
        form.contains("gpt-image-1") && form.contains("1536x1024"),
        "size by aspect"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_answers_are_refused() {
    let html = ModelHostDouble::start(Flavor::Replicate, Script::Succeed, Payload::HtmlAsPng).await;
    let e = call(&html, Role::Staging, Protocol::Replicate, 30)
        .await
        .expect_err("html");
    assert!(matches!(e, ProviderError::Invalid(_)), "{e}");

    let colour =
        ModelHostDouble::start(Flavor::Replicate, Script::Succeed, Payload::ColourDepth).await;
    let e = call(&colour, Role::Depth, Protocol::Replicate, 30)
        .await
        .expect_err("colourised");
    assert!(e.to_string().contains("colourised"), "{e}");
    let grey = ModelHostDouble::start(Flavor::Cog, Script::Succeed, Payload::GreyDepth).await;
    assert!(call(&grey, Role::Depth, Protocol::Cog, 30).await.is_ok());

    let huge = ModelHostDouble::start(Flavor::Replicate, Script::Succeed, Payload::Huge).await;
    let e = call(&huge, Role::Staging, Protocol::Replicate, 60)
        .await
        .expect_err("huge");
    assert!(e.to_string().contains("larger than 64 MB"), "{e}");
}

struct Env {
    dir: tempfile::TempDir,
    images: common::TestServer,
}

impl Env {
    async fn new() -> Env {
        let dir = tempfile::tempdir().expect("temp dir");
        let picture = common::picture(dir.path(), "house.jpg", 960, 540);
        let portrait = common::picture(dir.path(), "portrait.jpg", 540, 960);
        let route = |path: &std::path::Path| common::Route::Body {
            content_type: "image/jpeg",
            body: Arc::new(std::fs::read(path).expect("read")),
        };
        let images = common::TestServer::start(
            "127.0.0.1",
            vec![
                ("/house.jpg", route(&picture)),
                ("/portrait.jpg", route(&portrait)),
            ],
        )
        .await;
        Env { dir, images }
    }

    fn renderer(&self, roles: ProviderRoles) -> Renderer {
        let fetch = FetchConfig {
            allow: AllowList::parse("127.0.0.1").expect("allow"),
            ..FetchConfig::default()
        };
        let storage = Arc::new(LocalStorage::new(self.dir.path().join("store"), "/files"));
        Renderer::new(RenderConfig::default(), Fetcher::new(fetch, None), storage)
            .with_providers(Providers::new(roles).expect("clients"))
    }

    fn job(&self, vfx: &Vfx) -> VideoJob {
        VideoJob {
            key_prefix: "videos/m".into(),
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
            pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
            branded_intro: false,
            branded_sound: None,
        }
    }
}

/// Mean RGB of the lower right corner (a quarter of the width, a tenth of the height) of the
/// middle frame: where the disclosure caption sits.
fn corner_rgb(path: &std::path::Path) -> [f64; 3] {
    let out = std::process::Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-i"])
        .arg(path)
        .args([
            "-vf",
            "select=eq(n\\,75),crop=iw/4:ih/10:iw*3/4:ih*9/10,scale=64:16",
            "-frames:v",
            "1",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "rgb24",
            "-",
        ])
        .output()
        .expect("ffmpeg");
    assert!(out.status.success() && !out.stdout.is_empty(), "decoded");
    let mut sum = [0.0; 3];
    for px in out.stdout.chunks(3) {
        for c in 0..3 {
            sum[c] += f64::from(px[c]);
        }
    }
    sum.map(|s| s / (out.stdout.len() / 3) as f64)
}

fn near_magenta(rgb: [f64; 3], tolerance: f64) -> bool {
    rgb.iter()
        .zip(MAGENTA)
        .all(|(got, want)| (got - f64::from(want)).abs() < tolerance)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_staged_video_shows_the_model_picture_and_a_second_one_reuses_it() {
    let env = Env::new().await;
    let double = ModelHostDouble::start(Flavor::Replicate, Script::Poll(1), Payload::Staged).await;
    let roles = ProviderRoles::none().with(config(&double, Role::Staging, Protocol::Replicate, 30));
    let renderer = env.renderer(roles);
    assert_eq!(renderer.available_vfx().len(), 11);
    let first = renderer
        .render_video(
            &env.job(&staging()),
            &env.dir.path().join("w1"),
            &NoObserver,
        )
        .await
        .expect("rendered through the Replicate double");
    let clip = env.dir.path().join("store").join(&first.clips[0].key);
    let v = common::stream(&common::probe(&clip), "video").clone();
    assert_eq!(common::num(&v["nb_read_frames"]), 150.0);
    // The clip shows the model's magenta picture, not the colourful test photo.
    let [r, g, b] = common::mean_rgb(&clip, 75);
    let [mr, mg, mb] = MAGENTA.map(f64::from);
    for (got, want) in [(r, mr), (g, mg), (b, mb)] {
        assert!(
            (got - want).abs() < 20.0,
            "frame {r} {g} {b} vs {MAGENTA:?}"
        );
    }
    assert_eq!(double.creates(), 1);
    // The disclosure caption (on by default) darkens the lower right corner.
    let corner = corner_rgb(&clip);
    assert!(!near_magenta(corner, 30.0), "caption drawn: {corner:?}");
    // The same photo with the same settings: the stored answer, no second call.
    renderer
        .render_video(
            &env.job(&staging()),
            &env.dir.path().join("w2"),
            &NoObserver,
        )
        .await
        .expect("second video");
    assert_eq!(double.creates(), 1, "no second provider call");
    // Other settings are another answer.
    let office: Vfx = serde_json::from_str(
        r#"{"type":"virtual-staging","config":{"room_type":"office","staging_style":"modern"}}"#,
    )
    .expect("vfx");
    renderer
        .render_video(&env.job(&office), &env.dir.path().join("w3"), &NoObserver)
        .await
        .expect("third video");
    assert_eq!(double.creates(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_caption_is_a_setting_and_only_on_altered_pictures() {
    let env = Env::new().await;
    let double = ModelHostDouble::start(Flavor::Replicate, Script::Succeed, Payload::Staged).await;
    let roles = ProviderRoles::none().with(config(&double, Role::Staging, Protocol::Replicate, 30));
    let fetch = FetchConfig {
        allow: AllowList::parse("127.0.0.1").expect("allow"),
        ..FetchConfig::default()
    };
    let storage = Arc::new(LocalStorage::new(env.dir.path().join("store"), "/files"));
    let off = Renderer::new(
        RenderConfig {
            disclosure_caption: false,
            ..RenderConfig::default()
        },
        Fetcher::new(fetch, None),
        storage,
    )
    .with_providers(Providers::new(roles).expect("clients"));
    let video = off
        .render_video(
            &env.job(&staging()),
            &env.dir.path().join("off"),
            &NoObserver,
        )
        .await
        .expect("rendered");
    let clip = env.dir.path().join("store").join(&video.clips[0].key);
    let corner = corner_rgb(&clip);
    assert!(near_magenta(corner, 20.0), "no caption: {corner:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thirty_second_fan_clip_is_conformed() {
    let env = Env::new().await;
    let double = ModelHostDouble::start(Flavor::Cog, Script::Succeed, Payload::LongClip).await;
    let roles = ProviderRoles::none().with(config(&double, Role::Fan, Protocol::Cog, 60));
    let video = env
        .renderer(roles)
        .render_video(
            &env.job(&Vfx::SpinCeilingFan),
            &env.dir.path().join("fan"),
            &NoObserver,
        )
        .await
        .expect("rendered from the 30 s clip");
    let clip = env.dir.path().join("store").join(&video.clips[0].key);
    let p = common::probe(&clip);
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
        "the clip has no sound"
    );
    let [r, g, _] = common::mean_rgb(&clip, 140);
    assert!(r > 1.8 * g, "the model's clip: {r} {g}");
    // A turning fan alters nothing of the home: no caption.
    let corner = corner_rgb(&clip);
    assert!(
        near_magenta(corner, 20.0),
        "no caption on a fan clip: {corner:?}"
    );
}

/// The depth role's map of the photo, as the server hands it to the clip step: made once by
/// the Cog double, stored, reused for a second clip, and read back by the v25 clip step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_depth_role_feeds_the_clip_step() {
    let env = Env::new().await;
    let double = ModelHostDouble::start(Flavor::Cog, Script::Succeed, Payload::GreyDepth).await;
    let roles = ProviderRoles::none().with(config(&double, Role::Depth, Protocol::Cog, 30));
    let renderer = env.renderer(roles);
    // Depth serves the camera: no vfx type is added.
    assert_eq!(renderer.available_vfx().len(), 10);
    let work = env.dir.path().join("depth");
    let prepared = renderer
        .prepare(
            &PrepareJob {
                key_prefix: "videos/d".into(),
                images: vec![(0, env.images.url("/house.jpg"))],
                audio_url: None,
            },
            &work,
            &NoObserver,
        )
        .await
        .expect("prepared");
    let input = prepared.inputs[0].clone();
    let MadeDepth::Map(depth) = renderer
        .generate_depth(&input, 0, &work)
        .await
        .expect("depth call")
    else {
        panic!("a depth role is configured");
    };
    assert!(
        depth.key.starts_with("private/generated/depth/"),
        "{}",
        depth.key
    );
    let again = renderer
        .generate_depth(&input, 0, &work)
        .await
        .expect("depth call");
    assert_eq!(again, MadeDepth::Map(depth.clone()));
    assert_eq!(double.creates(), 1, "the stored map is reused");
    let job = ClipJob {
        key_prefix: "videos/d".into(),
        index: 0,
        token: None,
        input,
        camera_motion: CameraMotion::PushIn,
        effect: None,
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        engine: Engine::V25,
        depth: Some(depth),
        depth_note: None,
        pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
        look: Default::default(),
        usage: stillreel_render::ClipUse::default(),
    };
    let clip = renderer
        .render_clip(&job, &work, &NoObserver)
        .await
        .expect("a v25 clip with the generated depth map");
    assert_eq!(clip.depth_fallback, None, "the double's map is used");
    let path = env.dir.path().join("store").join(clip.key);
    let v = common::stream(&common::probe(&path), "video").clone();
    assert_eq!(common::num(&v["nb_read_frames"]), 150.0);

    // Without a depth role there is no map, and nothing is called.
    let plain = env.renderer(ProviderRoles::none());
    assert_eq!(
        plain
            .generate_depth(&job.input, 0, &work)
            .await
            .expect("no call"),
        MadeDepth::NoRole
    );
}

/// The stored input of photo `path` after the prepare step.
async fn prepared_input(
    env: &Env,
    renderer: &Renderer,
    path: &str,
    work: &std::path::Path,
) -> stillreel_render::StoredInput {
    let prepared = renderer
        .prepare(
            &PrepareJob {
                key_prefix: "videos/d".into(),
                images: vec![(0, env.images.url(path))],
                audio_url: None,
            },
            work,
            &NoObserver,
        )
        .await
        .expect("prepared");
    prepared.inputs[0].clone()
}

/// The files under the result cache's folder of `role`.
fn cached(env: &Env, role: &str) -> usize {
    let dir = env.dir.path().join("store/private/generated").join(role);
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

/// A depth map of another aspect ratio than the photo (the double's 16:9 map for a portrait
/// photo) is refused as the answer and never stored: the clip falls back to the flat camera
/// with the reason, and the next clip of the photo calls the model again instead of taking
/// the bad map from the cache.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_depth_map_that_does_not_fit_is_never_stored() {
    let env = Env::new().await;
    let double = ModelHostDouble::start(Flavor::Cog, Script::Succeed, Payload::GreyDepth).await;
    let renderer =
        env.renderer(ProviderRoles::none().with(config(&double, Role::Depth, Protocol::Cog, 30)));
    let work = env.dir.path().join("wrong");
    let input = prepared_input(&env, &renderer, "/portrait.jpg", &work).await;
    for attempt in 1..=2 {
        let made = renderer
            .generate_depth(&input, 0, &work)
            .await
            .expect("a refused answer is no failure");
        let MadeDepth::Refused(why) = made else {
            panic!("a 16:9 map for a 9:16 photo was taken: {made:?}");
        };
        assert!(
            why.starts_with("the depth model sent an answer it cannot use")
                && why.contains("aspect ratio"),
            "{why}"
        );
        assert_eq!(
            double.creates(),
            attempt,
            "called again, not failed from the cache"
        );
        assert_eq!(cached(&env, "depth"), 0, "nothing stored");
    }
}

/// Jobs that need the same input at once share one call: two depth maps of one photo asked
/// together (two clips of it), and by two renderers sharing their claims (two workers).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_jobs_for_one_input_share_one_call() {
    let env = Env::new().await;
    let double = ModelHostDouble::start(Flavor::Cog, Script::Busy(1), Payload::GreyDepth).await;
    let roles = ProviderRoles::none().with(config(&double, Role::Depth, Protocol::Cog, 30));
    let claims: Arc<dyn stillreel_providers::CallClaims> =
        Arc::new(stillreel_providers::LocalClaims::default());
    let one = env
        .renderer(roles.clone())
        .with_call_claims(Arc::clone(&claims));
    let two = env.renderer(roles).with_call_claims(claims);
    let (wa, wb, wc) = (
        env.dir.path().join("a"),
        env.dir.path().join("b"),
        env.dir.path().join("c"),
    );
    let input = prepared_input(&env, &one, "/house.jpg", &wa).await;
    let (a, b, c) = tokio::join!(
        one.generate_depth(&input, 0, &wa),
        one.generate_depth(&input, 1, &wb),
        two.generate_depth(&input, 0, &wc),
    );
    let a = a.expect("a");
    assert!(matches!(a, MadeDepth::Map(_)), "{a:?}");
    assert_eq!(b.expect("b"), a);
    assert_eq!(c.expect("c"), a);
    // One prediction: the first create answered 409 (busy) and was retried, so two creates.
    assert_eq!(double.creates(), 2, "one call, retried once after 409");
    assert_eq!(cached(&env, "depth"), 1);
}
