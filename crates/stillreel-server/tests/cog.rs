//! The `cog` provider protocol against Replicate's real Cog server (`python -m cog.server.http`,
//! the `cog` package's Rust server, started without Docker by `common::cog`), one server per
//! test predictor of `tests/cog/`, driven through the real stillreel server's API: every role
//! answers, Cog's own refusals and failures reach the video's error as Cog words them, a call
//! past its time limit is cancelled on Cog, and one input makes one model call however many
//! clips and videos need it at once.
//!
//! Every test is `#[ignore]`d: plain `cargo test` does not run them (they need the Cog
//! installed by `scripts/setup.sh`); the cog suite (`scripts/suites/35-cog.sh`) runs them one
//! at a time, so that the measured times are not another test's renders.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::TestApp;
use common::cog::{CogModel, Occupied, Schema};
use common::media::{middle_rgb, probe, stored, stored_answers};
use serde_json::{Map, Value, json};
use stillreel_providers::{Model, Protocol, ProviderRoles, Providers, Role, RoleConfig};
use stillreel_server::config::Config;
use stillreel_server::queue;
use stillreel_server::worker::{self, WorkerSettings, Workers};

/// `<backend>::<name>` tests from `async fn <name>(app: TestApp)`, skipped by plain
/// `cargo test`.
macro_rules! cog_tests {
    (mod $module:ident on $backend:ident: $($name:ident),+ $(,)?) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                #[ignore = "cog suite: scripts/suites/35-cog.sh"]
                async fn $name() {
                    if let Some(app) = $crate::common::TestApp::spawn_with($crate::common::Backend::$backend, super::configure).await {
                        super::$name(app).await;
                    }
                }
            )+
        }
    };
}

cog_tests!(mod sqlite on Sqlite:
    depth_map_from_cog,
    staged_picture_from_cog,
    generative_clips_from_cog,
    two_jobs_at_once_on_one_cog_server,
    wrong_input_name_shows_cogs_detail,
    starting_model_is_waited_for,
    setup_failure_fails_at_once,
    exception_in_predict_fails_the_video,
    time_limit_cancels_the_prediction,
    one_call_per_input,
    time_to_fail_of_dead_busy_and_broken_hosts,
);
// What the database decides (a claim row shared by concurrent jobs), on PostgreSQL too.
cog_tests!(mod postgres on Postgres:
    two_jobs_at_once_on_one_cog_server,
    one_call_per_input,
);

fn configure(config: &mut Config) {
    config.samples_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    config.fetch_allow = vec!["127.0.0.1".to_owned()];
}

/// `role` served by `cog`, labelled `model`, with an input template or the role's default.
fn role(role: Role, cog: &CogModel, model: &str, input: Option<Value>, secs: u64) -> RoleConfig {
    RoleConfig {
        role,
        protocol: Protocol::Cog,
        url: cog.url.clone(),
        token: None,
        model: Some(Model::Named(model.to_owned())),
        input: input.map(|v| v.as_object().expect("an input object").clone()),
        prompt: None,
        timeout: Duration::from_secs(secs),
    }
}

/// Starts render and model workers with these roles, as `stillreel serve` would.
fn start_workers(app: &TestApp, roles: ProviderRoles, model_workers: usize) -> Workers {
    let providers = Providers::new(roles).expect("clients");
    let renderer = worker::build_renderer(&app.state)
        .expect("renderer")
        .with_providers(providers.clone());
    // What build_renderer does with configured roles: /get_engines shows their health.
    app.state.set_providers(providers);
    app.state.set_available_vfx(renderer.available_vfx());
    app.state
        .set_available_engines(renderer.available_engines());
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 2;
    settings.model_workers = model_workers;
    settings.idle_poll = Duration::from_millis(100);
    worker::start(app.state.services.clone(), renderer, settings)
}

fn sample(app: &TestApp, name: &str) -> String {
    format!("{}/samples/{name}", app.base)
}

async fn create(app: &TestApp, key: &str, body: &Value) -> String {
    let r = app.post("/api/v1/create_video", key, body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    r.json["uuid"].as_str().expect("uuid").to_owned()
}

async fn wait_final(app: &TestApp, key: &str, uuid: &str) -> Value {
    app.wait_final(key, uuid, Duration::from_secs(240)).await
}

/// `get_engines`' provider list: `(role, protocol, health)` of each.
async fn provider_health(app: &TestApp, key: &str) -> Vec<(String, String, String)> {
    let r = app.get("/api/v1/get_engines", key).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    r.json["providers"]
        .as_array()
        .unwrap_or_else(|| panic!("no providers list: {}", r.json))
        .iter()
        .map(|p| (text(&p["role"]), text(&p["protocol"]), text(&p["health"])))
        .collect()
}

fn health(role: &str, health: &str) -> Vec<(String, String, String)> {
    vec![(role.to_owned(), "cog".to_owned(), health.to_owned())]
}

/// The video's `error` member, checked to be a failure of `image_inputs[0]`.
fn error_of(video: &Value) -> (String, String) {
    assert_eq!(video["status"], "error", "{video}");
    let error = &video["error"];
    assert_eq!(error["field"], "image_inputs[0]", "{video}");
    (
        error["code"].as_str().unwrap_or_default().to_owned(),
        error["message"].as_str().unwrap_or_default().to_owned(),
    )
}

/// A message for people: no address of the model host in it.
fn assert_no_address(message: &str, cog: &CogModel) {
    for leak in ["http://", "127.0.0.1", &cog.port.to_string()] {
        assert!(!message.contains(leak), "{leak:?} in {message:?}");
    }
}

async fn depth_map_from_cog(app: TestApp) {
    let cog = CogModel::start("depth", Schema::Written, &[]);
    let roles = ProviderRoles::none().with(role(Role::Depth, &cog, "depth-anything-v2", None, 60));
    let workers = start_workers(&app, roles, 1);
    let key = app.account().await.api_key;
    let before = app.get("/api/v1/get_engines", &key).await.json;

    let body = json!({"ai_engine": "v25", "image_inputs": [
        {"image_url": sample(&app, "house-colonial.jpg"), "camera_motion": "push-in"}]});
    let id = create(&app, &key, &body).await;
    let done = wait_final(&app, &key, &id).await;
    assert_eq!(done["status"], "complete", "{done}");
    assert_eq!(cog.calls(), 1, "one depth prediction");
    let clip = &done["video_clips"][0];
    assert_eq!(
        clip["generated"],
        json!([{"role": "depth", "model": "depth-anything-v2"}]),
        "{done}"
    );
    // The grey map was taken, not the colour one: Cog's answer as stored, grey and 512 px
    // wide at the photo's aspect (house-colonial.jpg is 3:2).
    let maps = stored_answers(&app, "depth");
    assert_eq!(maps.len(), 1, "{maps:?}");
    let map = probe(&maps[0]);
    assert_eq!(map["pix_fmt"], "gray", "{map}");
    assert_eq!(
        (map["width"].as_u64(), map["height"].as_u64()),
        (Some(512), Some(341))
    );
    let video = probe(&stored(&app, done["video_url"].as_str().expect("url")));
    assert_eq!(video["nb_read_frames"], "150", "{video}");
    // Each role's last known health: not asked before the first call, ready after it.
    assert_eq!(
        before["providers"],
        json!([{"role": "depth", "protocol": "cog", "health": "unchecked"}]),
        "{before}"
    );
    assert_eq!(provider_health(&app, &key).await, health("depth", "ready"));
    workers.shutdown().await;
    app.stop().await;
}

async fn staged_picture_from_cog(app: TestApp) {
    let cog = CogModel::start("staging", Schema::Written, &[]);
    let roles = ProviderRoles::none().with(role(Role::Staging, &cog, "flux-kontext-dev", None, 60));
    let workers = start_workers(&app, roles, 1);
    let key = app.account().await.api_key;
    let body = json!({"image_inputs": [
        {"image_url": sample(&app, "living-room.png"), "vfx": {"type": "virtual-staging"}}]});
    let id = create(&app, &key, &body).await;
    let done = wait_final(&app, &key, &id).await;
    assert_eq!(done["status"], "complete", "{done}");
    assert_eq!(cog.calls(), 1);
    // The clip is made from the model's teal picture (the photo has no such colour).
    let clip = stored(
        &app,
        done["video_clips"][0]["clip_url"].as_str().expect("url"),
    );
    let rgb = middle_rgb(&clip);
    for (got, want) in rgb.iter().zip([0.0, 160.0, 160.0]) {
        assert!((got - want).abs() < 20.0, "{rgb:?} is not the model's teal");
    }
    workers.shutdown().await;
    app.stop().await;
}

async fn generative_clips_from_cog(app: TestApp) {
    let cog = CogModel::start("clip", Schema::Written, &[]);
    let roles = ProviderRoles::none().with(role(Role::Clip, &cog, "wan-2.2-i2v", None, 120));
    let workers = start_workers(&app, roles, 2);
    let key = app.account().await.api_key;
    let body = json!({"ai_engine": "generative", "image_inputs": [
        {"image_url": sample(&app, "house-colonial.jpg"), "camera_motion": "orbit-left"},
        {"image_url": sample(&app, "living-room.png"), "camera_motion": "push-in"}]});
    let id = create(&app, &key, &body).await;
    let done = wait_final(&app, &key, &id).await;
    assert_eq!(done["status"], "complete", "{done}");
    assert_eq!(cog.calls(), 2, "one prediction per clip");
    // Cog's answers as stored: the model's 2 s at 24 fps, 640 px wide.
    let answers = stored_answers(&app, "clip");
    assert_eq!(answers.len(), 2, "{answers:?}");
    for answer in &answers {
        let p = probe(answer);
        assert_eq!(
            (p["r_frame_rate"].as_str(), p["nb_read_frames"].as_str()),
            (Some("24/1"), Some("48")),
            "{p}"
        );
        assert_eq!(p["width"], 640, "{p}");
    }
    // Each clip is the model's clip, conformed: 150 frames at 30 fps, the clip's size, no
    // sound, and only green (the model kept the photo's green channel alone).
    for clip in done["video_clips"].as_array().expect("clips") {
        assert_eq!(clip["ai_engine"], "generative", "{done}");
        let path = stored(&app, clip["clip_url"].as_str().expect("url"));
        let p = probe(&path);
        assert_eq!(p["nb_read_frames"], "150", "{p}");
        assert_eq!(p["r_frame_rate"], "30/1", "{p}");
        assert_eq!(
            (p["width"].as_u64(), p["height"].as_u64()),
            (Some(1280), Some(720))
        );
        assert_eq!(p["has_audio"], false, "{p}");
        let [r, g, b] = middle_rgb(&path);
        assert!(
            r < 25.0 && b < 25.0 && g > 50.0,
            "not the model's green clip: {r} {g} {b}"
        );
    }
    workers.shutdown().await;
    app.stop().await;
}

/// Both videos' jobs are seen running at once (so both called the one-prediction server at
/// once: the second got Cog's 409 until the first answered), and both complete.
async fn two_jobs_at_once_on_one_cog_server(app: TestApp) {
    let cog = CogModel::start(
        "depth",
        Schema::Written,
        &[("STILLREEL_COG_DELAY_SECS", "2")],
    );
    let roles = ProviderRoles::none().with(role(Role::Depth, &cog, "depth-anything-v2", None, 60));
    let workers = start_workers(&app, roles, 2);
    let key = app.account().await.api_key;
    let mut ids = Vec::new();
    for photo in ["house-colonial.jpg", "living-room.png"] {
        let body = json!({"image_inputs": [{"image_url": sample(&app, photo)}]});
        ids.push(create(&app, &key, &body).await);
    }
    let started = Instant::now();
    let mut both_running = false;
    while !both_running && started.elapsed() < Duration::from_secs(30) {
        let mut running = 0;
        for id in &ids {
            let jobs = queue::graph_of_video(app.db(), id.parse().expect("uuid"))
                .await
                .expect("jobs");
            running += jobs
                .iter()
                .filter(|j| j.kind == worker::kinds::GENERATE && j.state == "running")
                .count();
        }
        both_running = running == 2;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(both_running, "the two model calls never ran at once");
    for id in &ids {
        let done = wait_final(&app, &key, id).await;
        assert_eq!(done["status"], "complete", "{done}");
    }
    // One prediction at a time: the second started after the first answered.
    let (starts, ends) = (cog.starts(), cog.ends());
    assert_eq!((starts.len(), ends.len()), (2, 2), "{}", cog.log());
    assert!(
        starts[1] >= ends[0],
        "predictions overlapped: {starts:?} {ends:?}"
    );
    workers.shutdown().await;
    app.stop().await;
}

async fn wrong_input_name_shows_cogs_detail(app: TestApp) {
    let cog = CogModel::start("depth", Schema::Written, &[]);
    let input = json!({"picture": "{{image}}"});
    let roles = ProviderRoles::none().with(role(
        Role::Depth,
        &cog,
        "depth-anything-v2",
        Some(input),
        60,
    ));
    let workers = start_workers(&app, roles, 1);
    let key = app.account().await.api_key;
    let body = json!({"image_inputs": [{"image_url": sample(&app, "house-colonial.jpg")}]});
    let started = Instant::now();
    let id = create(&app, &key, &body).await;
    let done = wait_final(&app, &key, &id).await;
    let (_, message) = error_of(&done);
    assert!(message.starts_with("the depth model"), "{message}");
    assert!(message.contains("image: Field required"), "{message}");
    assert_no_address(&message, &cog);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "a 422 is not retried"
    );
    assert_eq!(cog.calls(), 0);
    workers.shutdown().await;
    app.stop().await;
}

/// A video made while the model still loads its weights (5 s of `setup()`): stillreel waits for
/// Cog's `STARTING` to end, within the role's limit, and the video completes.
async fn starting_model_is_waited_for(app: TestApp) {
    let cog = CogModel::spawn(
        "depth",
        Schema::Written,
        &[("STILLREEL_COG_SETUP_SECS", "5")],
    );
    let roles = ProviderRoles::none().with(role(Role::Depth, &cog, "depth-anything-v2", None, 60));
    let workers = start_workers(&app, roles, 1);
    let key = app.account().await.api_key;
    let body = json!({"image_inputs": [{"image_url": sample(&app, "house-colonial.jpg")}]});
    let started = Instant::now();
    let id = create(&app, &key, &body).await;
    cog.wait_status("STARTING", Duration::from_secs(10));
    let done = wait_final(&app, &key, &id).await;
    assert_eq!(done["status"], "complete", "{done}");
    assert_eq!(cog.calls(), 1);
    assert!(
        started.elapsed() > Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    workers.shutdown().await;
    app.stop().await;
}

async fn setup_failure_fails_at_once(app: TestApp) {
    let cog = CogModel::start("setup_fails", Schema::Absent, &[]);
    assert_eq!(cog.status().as_deref(), Some("SETUP_FAILED"));
    let roles = ProviderRoles::none().with(role(Role::Depth, &cog, "depth-anything-v2", None, 60));
    let workers = start_workers(&app, roles, 1);
    let key = app.account().await.api_key;
    let body = json!({"image_inputs": [{"image_url": sample(&app, "house-colonial.jpg")}]});
    let started = Instant::now();
    let id = create(&app, &key, &body).await;
    let done = wait_final(&app, &key, &id).await;
    let took = started.elapsed();
    eprintln!(
        "\ncog: a setup failure failed the video in {:.1} s",
        took.as_secs_f64()
    );
    let (code, message) = error_of(&done);
    assert_eq!(code, "provider_unavailable", "{done}");
    assert!(message.starts_with("the depth model"), "{message}");
    assert!(
        message.contains("RuntimeError: weights missing"),
        "{message}"
    );
    assert_no_address(&message, &cog);
    assert!(took < Duration::from_secs(15), "took {took:?}");
    assert_eq!(cog.calls(), 0);
    assert_eq!(
        provider_health(&app, &key).await,
        health("depth", "setup_failed")
    );
    workers.shutdown().await;
    app.stop().await;
}

async fn exception_in_predict_fails_the_video(app: TestApp) {
    let cog = CogModel::start("predict_fails", Schema::Written, &[]);
    let roles = ProviderRoles::none().with(role(Role::Staging, &cog, "flux-kontext-dev", None, 60));
    let workers = start_workers(&app, roles, 1);
    let key = app.account().await.api_key;
    let body = json!({"image_inputs": [
        {"image_url": sample(&app, "living-room.png"), "vfx": {"type": "virtual-staging"}}]});
    let id = create(&app, &key, &body).await;
    let done = wait_final(&app, &key, &id).await;
    assert_eq!(done["error"]["field"], "image_inputs[0].vfx", "{done}");
    let code = done["error"]["code"].as_str().unwrap_or_default();
    let message = done["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(code, "provider_failed", "{done}");
    assert!(
        message.starts_with("the staging model failed: ValueError: boom"),
        "{message}"
    );
    assert!(!message.contains("Prediction failed"), "{message}");
    assert_eq!(cog.calls(), 1, "a failed prediction is not retried");
    workers.shutdown().await;
    app.stop().await;
}

/// The hanging model under a 4 s limit: the video fails after its job's retries, and Cog is
/// free again at once. stillreel cancels the prediction it gave up on by the id it sent; Cog
/// 0.23.1 also cancels a prediction whose caller hung up, so this cannot tell which of the two
/// freed it, only that the prediction ended at the limit.
async fn time_limit_cancels_the_prediction(app: TestApp) {
    let cog = CogModel::start("hangs", Schema::Written, &[]);
    let roles = ProviderRoles::none().with(role(Role::Clip, &cog, "wan-2.2-i2v", None, 4));
    let workers = start_workers(&app, roles, 1);
    let key = app.account().await.api_key;
    let body = json!({"ai_engine": "generative", "image_inputs": [
        {"image_url": sample(&app, "living-room.png")}]});
    let started = Instant::now();
    let id = create(&app, &key, &body).await;
    // After the first attempt's limit, Cog is READY again long before the retry.
    while cog.calls() == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no prediction started"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let first = Instant::now();
    tokio::time::sleep(Duration::from_secs(4)).await;
    cog.wait_status("READY", Duration::from_secs(5));
    eprintln!(
        "\ncog: READY again {:.1} s after the first prediction started (limit 4 s)",
        first.elapsed().as_secs_f64()
    );
    let done = wait_final(&app, &key, &id).await;
    let took = started.elapsed();
    let (code, message) = error_of(&done);
    eprintln!(
        "\ncog: a 4 s clip limit failed the video in {:.1} s ({} predictions; code {code})",
        took.as_secs_f64(),
        cog.calls()
    );
    assert!(
        message.contains("the clip model did not answer within 4 s"),
        "{message}"
    );
    cog.wait_status("READY", Duration::from_secs(3));
    // Every prediction was stillreel's, by the id it sent (Cog makes up `pred_...` ids).
    let ids = cog.prediction_ids();
    assert_eq!(ids.len(), cog.calls(), "{ids:?}");
    assert!(ids.iter().all(|id| !id.starts_with("pred_")), "{ids:?}");
    workers.shutdown().await;
    app.stop().await;
}

/// Two clips of one photo in one video, then two videos of another photo created at once:
/// one depth prediction per photo.
async fn one_call_per_input(app: TestApp) {
    let cog = CogModel::start(
        "depth",
        Schema::Written,
        &[("STILLREEL_COG_DELAY_SECS", "1")],
    );
    let roles = ProviderRoles::none().with(role(Role::Depth, &cog, "depth-anything-v2", None, 60));
    let workers = start_workers(&app, roles, 2);
    let key = app.account().await.api_key;
    let photo = sample(&app, "house-colonial.jpg");
    let body = json!({"image_inputs": [
        {"image_url": photo, "camera_motion": "push-in"},
        {"image_url": photo, "camera_motion": "push-out"}]});
    let id = create(&app, &key, &body).await;
    let done = wait_final(&app, &key, &id).await;
    assert_eq!(done["status"], "complete", "{done}");
    assert_eq!(cog.calls(), 1, "two clips of one photo");

    let body = json!({"image_inputs": [{"image_url": sample(&app, "living-room.png")}]});
    let ids = [
        create(&app, &key, &body).await,
        create(&app, &key, &body).await,
    ];
    for id in &ids {
        let done = wait_final(&app, &key, id).await;
        assert_eq!(done["status"], "complete", "{done}");
    }
    assert_eq!(cog.calls(), 2, "two videos of one photo at once");
    workers.shutdown().await;
    app.stop().await;
}

/// Measures (and bounds) how long a video takes to fail on a dead host (nothing listening), a
/// busy one (every call answered 409) and a broken one (setup failed), under the limit
/// `STILLREEL_COG_MEASURE_TIMEOUT_SECS` (default 3 s; docs/PROVIDERS.md has the default's).
async fn time_to_fail_of_dead_busy_and_broken_hosts(app: TestApp) {
    let secs_limit: u64 = std::env::var("STILLREEL_COG_MEASURE_TIMEOUT_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let busy = CogModel::start("hangs", Schema::Written, &[]);
    let _occupied = Occupied::new(&busy);
    let broken = CogModel::start("setup_fails", Schema::Absent, &[]);
    let mut dead = CogModel::start("depth", Schema::Written, &[]);
    dead.kill();
    let hosts = [
        (Role::Staging, &dead),
        (Role::Lifestyle, &busy),
        (Role::Depth, &broken),
    ];
    let mut roles = ProviderRoles::none();
    for (r, cog) in hosts {
        let mut config = role(r, cog, "test", None, secs_limit);
        config.input = Some(Map::from_iter([("image".to_owned(), json!("{{image}}"))]));
        roles = roles.with(config);
    }
    let workers = start_workers(&app, roles, 3);
    // An account each: one account's jobs run two at a time, and none may wait for another.
    let mut keys = Vec::new();
    for _ in 0..3 {
        keys.push(app.account().await.api_key);
    }
    let photo = sample(&app, "living-room.png");
    // v24 for the two effects: its camera takes no depth map, so they call only their role.
    let bodies = [
        json!({"ai_engine": "v24", "image_inputs": [{"image_url": photo, "vfx": {"type": "virtual-staging"}}]}),
        json!({"ai_engine": "v24", "image_inputs": [{"image_url": photo, "vfx": {"type": "lifestyle"}}]}),
        json!({"image_inputs": [{"image_url": sample(&app, "house-colonial.jpg")}]}),
    ];
    let started = Instant::now();
    let mut ids = Vec::new();
    for (body, key) in bodies.iter().zip(&keys) {
        ids.push(create(&app, key, body).await);
    }
    let mut took: Vec<Option<f64>> = vec![None; ids.len()];
    while took.iter().any(Option::is_none) {
        for (i, id) in ids.iter().enumerate() {
            if took[i].is_some() {
                continue;
            }
            let r = app
                .get(&format!("/api/v1/get_video?uuid={id}"), &keys[i])
                .await;
            match r.json["status"].as_str() {
                Some("error") => {
                    let secs = started.elapsed().as_secs_f64();
                    eprintln!(
                        "\ncog: limit {secs_limit} s, {} host: failed after {secs:.1} s: {} {}",
                        ["dead", "busy", "broken"][i],
                        r.json["error"]["code"],
                        r.json["error"]["message"],
                    );
                    took[i] = Some(secs);
                }
                Some("complete") => panic!("completed: {}", r.json),
                _ => {}
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(3 * secs_limit + 120),
            "not failed yet: {took:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let took: Vec<f64> = took.into_iter().flatten().collect();
    // A busy host is retried until the limit by each of the job's 3 attempts (10 s and 40 s
    // apart); a dead one likewise, but for at most 30 s of refused connections an attempt; a
    // broken one fails at once.
    let (dead, busy_limit) = (secs_limit.min(30) as f64, secs_limit as f64);
    assert!(
        took[0] > 2.0 * dead && took[0] < 3.0 * (dead + 16.0) + 70.0,
        "dead: {took:?}"
    );
    assert!(
        took[1] > 2.0 * busy_limit && took[1] < 3.0 * busy_limit + 70.0,
        "busy: {took:?}"
    );
    assert!(took[2] < 15.0, "broken: {took:?}");
    assert_eq!(
        busy.calls(),
        1,
        "only the test's own prediction ran on the busy host"
    );
    workers.shutdown().await;
    app.stop().await;
}
