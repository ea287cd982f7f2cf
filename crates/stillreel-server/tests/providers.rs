//! Model providers through the real server, on SQLite and PostgreSQL, against the Replicate
//! **test double** (`model_host_double`, shared with the render crate's tests): `/get_engines`
//! offers exactly what the configured role makes available, a `virtual-staging` video runs its
//! model call as a job of its own before the clip, the staged clip shows the double's picture
//! (decoded frames), and a second video of the same photo makes no second provider call. The
//! generative engine (`ai_engine: "generative"`) likewise: offered only with a clip role, each
//! clip the clip model's answer, conformed, reused for the same photo and motion.

mod common;
#[path = "../../stillreel-render/tests/model_host_double/mod.rs"]
mod model_host_double;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::TestApp;
use model_host_double::{Flavor, MAGENTA, ModelHostDouble, Payload, Script};
use serde_json::{Value, json};
use stillreel_providers::{Model, Protocol, ProviderRoles, Providers, Role, RoleConfig};
use stillreel_server::config::Config;
use stillreel_server::queue;
use stillreel_server::worker::{self, WorkerSettings, kinds};

both_backends!(
    mod staging, configured by configure:
    a_staged_video_calls_the_model_once_in_a_job_of_its_own,
);
both_backends!(
    mod no_caption, configured by without_caption:
    a_staged_video_calls_the_model_once_in_a_job_of_its_own,
);
both_backends!(
    mod one_call, configured by configure:
    videos_and_clips_of_one_photo_at_once_share_one_depth_call,
    model_call_claims_hold_lapse_and_release,
    unusable_depth_maps_fall_back_to_the_flat_camera,
);
both_backends!(
    mod clip_engine, configured by configure:
    a_generative_video_takes_each_clip_from_the_clip_model,
);

fn configure(config: &mut Config) {
    config.samples_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    config.fetch_allow = vec!["127.0.0.1".to_owned()];
}

/// `STILLREEL_DISCLOSURE_CAPTION=off`.
fn without_caption(config: &mut Config) {
    configure(config);
    config.disclosure_caption = false;
}

async fn wait_final(app: &TestApp, key: &str, uuid: &str) -> Value {
    app.wait_final(key, uuid, Duration::from_secs(240)).await
}

/// The mean RGB of the middle frame of a stored clip, decoded by ffmpeg (all of it, or its
/// lower right corner, where the disclosure caption sits).
fn middle_rgb(app: &TestApp, url: &str) -> [f64; 3] {
    common::media::frame_rgb(&common::media::stored(app, url), "scale=64:36")
}

fn corner_rgb(app: &TestApp, url: &str) -> [f64; 3] {
    common::media::frame_rgb(
        &common::media::stored(app, url),
        "crop=iw/4:ih/10:iw*3/4:ih*9/10,scale=64:16",
    )
}

async fn a_staged_video_calls_the_model_once_in_a_job_of_its_own(app: TestApp) {
    let double = ModelHostDouble::start(Flavor::Replicate, Script::Poll(1), Payload::Staged).await;
    let staging = RoleConfig {
        role: Role::Staging,
        protocol: Protocol::Replicate,
        url: double.base.clone(),
        token: Some("r8_doubletoken".into()),
        model: Some(Model::Replicate {
            owner: "black-forest-labs".into(),
            name: "flux-kontext-pro".into(),
            version: None,
        }),
        input: None,
        prompt: None,
        timeout: Duration::from_secs(30),
    };
    let providers = Providers::new(ProviderRoles::none().with(staging)).expect("clients");
    let renderer = worker::build_renderer(&app.state)
        .expect("renderer")
        .with_providers(providers);
    app.state.set_available_vfx(renderer.available_vfx());
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 2;
    settings.model_workers = 1;
    settings.idle_poll = Duration::from_millis(100);
    let workers = worker::start(app.state.services.clone(), renderer, settings);
    let key = app.account().await.api_key;

    // The configured role's effect is offered; the others still are not.
    let engines = app.get("/api/v1/get_engines", &key).await;
    let vfx = &engines.json["engines"][1]["vfx_types"];
    assert!(
        vfx.as_array()
            .expect("vfx")
            .contains(&json!("virtual-staging")),
        "{vfx}"
    );
    assert!(!vfx.as_array().expect("vfx").contains(&json!("lifestyle")));
    let sample = |name: &str| format!("{}/samples/{name}", app.base);
    let refused = app
        .post(
            "/api/v1/create_video",
            &key,
            &json!({"image_inputs": [{"image_url": sample("living-room.png"), "vfx": {"type": "lifestyle"}}]}),
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.json);
    assert_eq!(
        refused.json["error"]["details"][0]["code"], "vfx_unavailable",
        "{}",
        refused.json
    );

    let body = json!({"image_inputs": [
        {"image_url": sample("house-colonial.jpg")},
        {"image_url": sample("living-room.png"),
         "vfx": {"type": "virtual-staging", "config": {"room_type": "living", "staging_style": "modern"}}},
    ]});
    let r = app.post("/api/v1/create_video", &key, &body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let id = r.json["uuid"].as_str().expect("uuid").to_owned();
    let done = wait_final(&app, &key, &id).await;
    assert_eq!(done["status"], "complete", "{done}");
    assert_eq!(double.creates(), 1);
    let prompt = double.seen()[0].json()["input"]["prompt"]
        .as_str()
        .expect("prompt")
        .to_owned();
    assert!(prompt.contains("living room"), "{prompt}");
    // The staged clip is made from the model's picture; the plain one from its photo.
    let clips = done["video_clips"].as_array().expect("clips");
    let staged = middle_rgb(&app, clips[1]["clip_url"].as_str().expect("url"));
    for (got, want) in staged.iter().zip(MAGENTA) {
        assert!(
            (got - f64::from(want)).abs() < 20.0,
            "{staged:?} vs {MAGENTA:?}"
        );
    }
    // The clip record says what a model made; the photo's clip has no such member.
    assert_eq!(
        clips[1]["generated"],
        json!([{"role": "staging", "model": "black-forest-labs/flux-kontext-pro"}]),
        "{done}"
    );
    assert!(clips[0].get("generated").is_none(), "{done}");
    // The disclosure caption, on by default, off by setting.
    let corner = corner_rgb(&app, clips[1]["clip_url"].as_str().expect("url"));
    let magenta_corner = corner
        .iter()
        .zip(MAGENTA)
        .all(|(got, want)| (got - f64::from(want)).abs() < 20.0);
    assert_eq!(
        magenta_corner, !app.state.config.disclosure_caption,
        "caption {}: corner {corner:?}",
        app.state.config.disclosure_caption
    );
    let plain = middle_rgb(&app, clips[0]["clip_url"].as_str().expect("url"));
    assert!(
        (plain[1] - f64::from(MAGENTA[1])).abs() > 20.0,
        "the photo's clip: {plain:?}"
    );
    // The model call was a job of its own, done before the clip.
    let uuid = id.parse().expect("uuid");
    let jobs = queue::graph_of_video(app.db(), uuid).await.expect("jobs");
    let generate: Vec<_> = jobs.iter().filter(|j| j.kind == kinds::GENERATE).collect();
    assert_eq!(generate.len(), 1, "{jobs:?}");
    assert_eq!(generate[0].clip_index, Some(1));
    assert_eq!(generate[0].state, "done", "{jobs:?}");
    let clip = jobs
        .iter()
        .find(|j| j.kind == kinds::CLIP && j.clip_index == Some(1))
        .expect("the staged clip's job");
    assert!(
        clip.created_at >= generate[0].updated_at,
        "the clip was queued when the model call completed"
    );

    // The same photo again: the stored answer, no second call.
    let r = app.post("/api/v1/create_video", &key, &body).await;
    let again = r.json["uuid"].as_str().expect("uuid").to_owned();
    let done = wait_final(&app, &key, &again).await;
    assert_eq!(done["status"], "complete", "{done}");
    assert_eq!(double.creates(), 1, "no second provider call");
    workers.shutdown().await;
    app.stop().await;
}

/// ffprobe's facts of a stored clip: (frames, frame rate, width, height, has sound).
fn clip_facts(app: &TestApp, url: &str) -> (u64, String, u64, u64, bool) {
    let key = url
        .strip_prefix(&format!("{}/files/", app.base))
        .unwrap_or_else(|| panic!("{url} is not a stored file"));
    let path = app.state.storage.local_path(key).expect("local storage");
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-count_frames",
            "-show_streams",
            "-of",
            "json",
        ])
        .arg(&path)
        .output()
        .expect("ffprobe");
    assert!(out.status.success(), "ffprobe");
    let probe: Value = serde_json::from_slice(&out.stdout).expect("json");
    let streams = probe["streams"].as_array().expect("streams");
    let video = streams
        .iter()
        .find(|s| s["codec_type"] == "video")
        .expect("a video stream");
    (
        video["nb_read_frames"]
            .as_str()
            .and_then(|n| n.parse().ok())
            .expect("frames"),
        video["r_frame_rate"].as_str().expect("rate").to_owned(),
        video["width"].as_u64().expect("width"),
        video["height"].as_u64().expect("height"),
        streams.iter().any(|s| s["codec_type"] == "audio"),
    )
}

async fn a_generative_video_takes_each_clip_from_the_clip_model(app: TestApp) {
    let key = app.account().await.api_key;
    let sample = |name: &str| format!("{}/samples/{name}", app.base);
    let body = json!({"ai_engine": "generative", "image_inputs": [
        {"image_url": sample("house-colonial.jpg"), "camera_motion": "orbit-left"},
        {"image_url": sample("living-room.png"), "camera_motion": "push-in"},
    ]});

    // Without a clip role the engine is not offered, and asking for it is a 422.
    let engines = app.get("/api/v1/get_engines", &key).await;
    let ids: Vec<&str> = engines.json["engines"]
        .as_array()
        .expect("engines")
        .iter()
        .filter_map(|e| e["id"].as_str())
        .collect();
    assert_eq!(ids, ["v24", "v25"], "{}", engines.json);
    let refused = app.post("/api/v1/create_video", &key, &body).await;
    assert_eq!(refused.status, 422, "{}", refused.json);
    let detail = &refused.json["error"]["details"][0];
    assert_eq!(detail["field"], "ai_engine", "{}", refused.json);
    assert_eq!(detail["code"], "engine_unavailable", "{}", refused.json);

    // A Replicate double answering a 30 s, 25 fps magenta clip with sound.
    let double =
        ModelHostDouble::start(Flavor::Replicate, Script::Poll(1), Payload::LongClip).await;
    let clip = RoleConfig {
        role: Role::Clip,
        protocol: Protocol::Replicate,
        url: double.base.clone(),
        token: Some("r8_doubletoken".into()),
        model: Some(Model::Replicate {
            owner: "wan-video".into(),
            name: "wan-2.2-i2v-fast".into(),
            version: None,
        }),
        input: None,
        prompt: None,
        timeout: Duration::from_secs(60),
    };
    let providers = Providers::new(ProviderRoles::none().with(clip)).expect("clients");
    let renderer = worker::build_renderer(&app.state)
        .expect("renderer")
        .with_providers(providers);
    app.state.set_available_vfx(renderer.available_vfx());
    app.state
        .set_available_engines(renderer.available_engines());
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 2;
    settings.model_workers = 1;
    settings.idle_poll = Duration::from_millis(100);
    let workers = worker::start(app.state.services.clone(), renderer, settings);

    // Now listed, with every motion and only the procedural effects; not the default.
    let engines = app.get("/api/v1/get_engines", &key).await;
    let generative = engines.json["engines"]
        .as_array()
        .expect("engines")
        .iter()
        .find(|e| e["id"] == "generative")
        .unwrap_or_else(|| panic!("listed: {}", engines.json))
        .clone();
    assert_eq!(generative["default"], false);
    assert_eq!(
        generative["camera_motions"].as_array().map(Vec::len),
        Some(5)
    );
    assert_eq!(generative["vfx_types"].as_array().map(Vec::len), Some(10));
    // A generative effect cannot ride on a model-made clip.
    let staged = json!({"ai_engine": "generative", "image_inputs": [
        {"image_url": sample("living-room.png"), "vfx": {"type": "virtual-staging"}},
    ]});
    let refused = app.post("/api/v1/create_video", &key, &staged).await;
    assert_eq!(refused.status, 422, "{}", refused.json);
    assert_eq!(
        refused.json["error"]["details"][0]["field"],
        "image_inputs[0].vfx.type"
    );

    let r = app.post("/api/v1/create_video", &key, &body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["ai_engine"], "generative");
    let id = r.json["uuid"].as_str().expect("uuid").to_owned();
    let done = wait_final(&app, &key, &id).await;
    assert_eq!(done["status"], "complete", "{done}");
    assert_eq!(double.creates(), 2, "one call per clip");
    let prompts: Vec<String> = double
        .seen()
        .iter()
        .filter(|s| s.method == "POST")
        .filter_map(|s| s.json()["input"]["prompt"].as_str().map(str::to_owned))
        .collect();
    assert!(
        prompts.iter().any(|p| p.contains("orbits to the left")),
        "{prompts:?}"
    );
    assert!(
        prompts.iter().any(|p| p.contains("pushes in")),
        "{prompts:?}"
    );
    let clips = done["video_clips"].as_array().expect("clips");
    for (clip, motion) in clips.iter().zip(["orbit-left", "push-in"]) {
        assert_eq!(clip["ai_engine"], "generative", "{done}");
        assert_eq!(clip["camera_motion"], motion, "{done}");
        assert_eq!(
            clip["generated"],
            json!([{"role": "clip", "model": "wan-video/wan-2.2-i2v-fast"}]),
            "{done}"
        );
        let url = clip["clip_url"].as_str().expect("url");
        assert_eq!(
            clip_facts(&app, url),
            (150, "30/1".to_owned(), 1280, 720, false),
            "conformed: 150 frames at 30 fps, the clip's size, no sound"
        );
        // The model's clip, not the photo (neither sample is magenta); no caption either.
        let rgb = middle_rgb(&app, url);
        for (got, want) in rgb.iter().zip(MAGENTA) {
            assert!(
                (got - f64::from(want)).abs() < 20.0,
                "{rgb:?} vs {MAGENTA:?}"
            );
        }
        let corner = corner_rgb(&app, url);
        assert!(
            (corner[1] - f64::from(MAGENTA[1])).abs() < 20.0,
            "no caption: {corner:?}"
        );
    }
    // Each model call was a job of its own, before its clip.
    let uuid = id.parse().expect("uuid");
    let jobs = queue::graph_of_video(app.db(), uuid).await.expect("jobs");
    let generate = jobs
        .iter()
        .filter(|j| j.kind == kinds::GENERATE && j.state == "done")
        .count();
    assert_eq!(generate, 2, "{jobs:?}");

    // The same photos and motions again: the stored answers, no second call.
    let r = app.post("/api/v1/create_video", &key, &body).await;
    let again = r.json["uuid"].as_str().expect("uuid").to_owned();
    let done = wait_final(&app, &key, &again).await;
    assert_eq!(done["status"], "complete", "{done}");
    assert_eq!(double.creates(), 2, "no second provider call");

    // Clips of the generative engine combine with each other, not with a v25 clip.
    let v25 =
        json!({"ai_engine": "v25", "image_inputs": [{"image_url": sample("house-colonial.jpg")}]});
    let r = app.post("/api/v1/create_video", &key, &v25).await;
    let v25_id = r.json["uuid"].as_str().expect("uuid").to_owned();
    let v25_done = wait_final(&app, &key, &v25_id).await;
    assert_eq!(v25_done["status"], "complete", "{v25_done}");
    let clip_id = |video: &Value, i: usize| video["video_clips"][i]["uuid"].clone();
    let mixed = json!({"orientation": "landscape", "resolution": "720p",
        "video_clip_uuids": [clip_id(&done, 0), clip_id(&v25_done, 0)]});
    let r = app.post("/api/v1/combine_video_clips", &key, &mixed).await;
    assert_eq!(r.status, 422, "{}", r.json);
    assert_eq!(
        r.json["error"]["details"][0]["code"], "mismatch",
        "{}",
        r.json
    );
    let same = json!({"orientation": "landscape", "resolution": "720p",
        "video_clip_uuids": [clip_id(&done, 1), clip_id(&done, 0)]});
    let r = app.post("/api/v1/combine_video_clips", &key, &same).await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["ai_engine"], "generative", "{}", r.json);
    let combined = r.json["uuid"].as_str().expect("uuid").to_owned();
    let combined = wait_final(&app, &key, &combined).await;
    assert_eq!(combined["status"], "complete", "{combined}");
    assert_eq!(double.creates(), 2, "a combine calls nothing");
    workers.shutdown().await;
    app.stop().await;
}

/// Two videos created at once, each with two clips of the same photo, on two model loops:
/// four jobs need the same depth map and one prediction is made (the claim is a database
/// row, so it holds across workers). `/get_engines` then shows the depth role as ready.
async fn videos_and_clips_of_one_photo_at_once_share_one_depth_call(app: TestApp) {
    // Busy once: the first create answers 409 and is retried a second later, so the other
    // jobs surely ask while the call is under way.
    let double = ModelHostDouble::start(Flavor::Cog, Script::Busy(1), Payload::GreyDepth).await;
    let depth = RoleConfig {
        role: Role::Depth,
        protocol: Protocol::Cog,
        url: double.base.clone(),
        token: None,
        model: None,
        input: None,
        prompt: None,
        timeout: Duration::from_secs(30),
    };
    let providers = Providers::new(ProviderRoles::none().with(depth)).expect("clients");
    let renderer = worker::build_renderer(&app.state)
        .expect("renderer")
        .with_providers(providers.clone());
    // What build_renderer does with the configured roles.
    app.state.set_providers(providers);
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 2;
    settings.model_workers = 2;
    settings.idle_poll = Duration::from_millis(100);
    let workers = worker::start(app.state.services.clone(), renderer, settings);
    let key = app.account().await.api_key;
    let engines = app.get("/api/v1/get_engines", &key).await;
    assert_eq!(
        engines.json["providers"],
        json!([{"role": "depth", "protocol": "cog", "health": "unchecked"}]),
        "{}",
        engines.json
    );

    let photo = format!("{}/samples/living-room.png", app.base);
    let body = json!({"ai_engine": "v25", "image_inputs": [
        {"image_url": photo, "camera_motion": "push-in"},
        {"image_url": photo, "camera_motion": "orbit-left"},
    ]});
    let (a, b) = tokio::join!(
        app.post("/api/v1/create_video", &key, &body),
        app.post("/api/v1/create_video", &key, &body)
    );
    for r in [&a, &b] {
        assert_eq!(r.status, 200, "{}", r.json);
        let done = wait_final(&app, &key, r.json["uuid"].as_str().expect("uuid")).await;
        assert_eq!(done["status"], "complete", "{done}");
        // The double's map (a floor gradient) is used: the record says nothing more.
        for clip in done["video_clips"].as_array().expect("clips") {
            assert!(clip.get("notes").is_none(), "{clip}");
        }
    }
    assert_eq!(
        double.creates(),
        2,
        "one prediction (its first create answered 409)"
    );
    let engines = app.get("/api/v1/get_engines", &key).await;
    assert_eq!(
        engines.json["providers"][0]["health"], "ready",
        "{}",
        engines.json
    );
    workers.shutdown().await;
    app.stop().await;
}

/// The claim rows themselves: one holder at a time, taken over once lapsed, released only by
/// their holder; many claimers at once, one winner.
async fn model_call_claims_hold_lapse_and_release(app: TestApp) {
    use stillreel_server::repo::model_calls::{claim, release};
    let db = app.db();
    let long = Duration::from_secs(60);
    assert!(claim(db, "k", "a", long).await.expect("claim"));
    assert!(
        claim(db, "k", "a", long).await.expect("again"),
        "the holder again"
    );
    assert!(!claim(db, "k", "b", long).await.expect("held"));
    release(db, "k", "b").await.expect("release");
    assert!(
        !claim(db, "k", "b", long).await.expect("still held"),
        "only the holder releases"
    );
    release(db, "k", "a").await.expect("release");
    assert!(claim(db, "k", "b", Duration::ZERO).await.expect("free"));
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert!(
        claim(db, "k", "c", long).await.expect("lapsed"),
        "a lapsed claim is taken over"
    );
    let racers = (0..16).map(|i| {
        let db = db.clone();
        tokio::spawn(async move { claim(&db, "race", &format!("r{i}"), long).await })
    });
    let mut winners = 0;
    for racer in racers {
        if racer.await.expect("join").expect("claim") {
            winners += 1;
        }
    }
    assert_eq!(winners, 1);
    app.stop().await;
}

/// Workers whose renderer has exactly `roles` (none: the flat camera for every clip).
fn workers_with(app: &TestApp, roles: ProviderRoles) -> worker::Workers {
    let providers = Providers::new(roles).expect("clients");
    let renderer = worker::build_renderer(&app.state)
        .expect("renderer")
        .with_providers(providers.clone());
    app.state.set_providers(providers);
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 1;
    settings.model_workers = 1;
    settings.idle_poll = Duration::from_millis(100);
    worker::start(app.state.services.clone(), renderer, settings)
}

/// The mean RGB of each quarter of a stored clip's middle frame.
fn quarters(app: &TestApp, url: &str) -> Vec<[f64; 3]> {
    let path = common::media::stored(app, url);
    ["0:0", "iw/2:0", "0:ih/2", "iw/2:ih/2"]
        .iter()
        .map(|at| common::media::frame_rgb(&path, &format!("crop=iw/2:ih/2:{at},scale=32:18")))
        .collect()
}

/// A depth map the camera cannot use never fails the video: a map of another aspect ratio
/// than the photo (refused as the depth model's answer), a flat map and a map of noise (the
/// clip step's checks) each give a complete video whose clip is the flat camera's clip of the
/// photo (its middle frame, quarter by quarter), records no depth in `generated`, and carries
/// a note saying why in `GET /get_video`.
async fn unusable_depth_maps_fall_back_to_the_flat_camera(app: TestApp) {
    let key = app.account().await.api_key;
    let photo = |name: &str| format!("{}/samples/{name}", app.base);
    let body = |name: &str| {
        json!({"ai_engine": "v25", "image_inputs": [
            {"image_url": photo(name), "camera_motion": "push-in"}]})
    };
    let create = |name: &'static str| {
        let app = &app;
        let key = &key;
        let body = body(name);
        async move {
            let r = app.post("/api/v1/create_video", key, &body).await;
            assert_eq!(r.status, 200, "{}", r.json);
            let id = r.json["uuid"].as_str().expect("uuid").to_owned();
            let done = wait_final(app, key, &id).await;
            assert_eq!(done["status"], "complete", "{done}");
            // What clients poll: GET /get_video.
            let got = app.get(&format!("/api/v1/get_video?uuid={id}"), key).await;
            assert_eq!(got.status, 200, "{}", got.json);
            got.json["video_clips"][0].clone()
        }
    };
    // The flat camera's clips of the two photos, without a depth role.
    let workers = workers_with(&app, ProviderRoles::none());
    let mut flat = std::collections::HashMap::new();
    for name in ["house-townhouse-portrait.jpg", "living-room.png"] {
        let clip = create(name).await;
        assert!(clip.get("notes").is_none(), "{clip}");
        flat.insert(
            name,
            quarters(&app, clip["clip_url"].as_str().expect("url")),
        );
    }
    workers.shutdown().await;
    // A refused answer is not kept, so the clip job asks again after the model job did; a
    // stored map (flat, noise) is asked for once.
    for (payload, model, name, says, calls) in [
        (
            Payload::GreyDepth,
            "aspect",
            "house-townhouse-portrait.jpg",
            "aspect ratio",
            2,
        ),
        (Payload::FlatDepth, "flat", "living-room.png", "flat", 1),
        (
            Payload::NoiseDepth,
            "noise",
            "living-room.png",
            "garbled",
            1,
        ),
    ] {
        let double = ModelHostDouble::start(Flavor::Cog, Script::Succeed, payload).await;
        let depth = RoleConfig {
            role: Role::Depth,
            protocol: Protocol::Cog,
            url: double.base.clone(),
            token: None,
            model: Some(Model::Named(model.to_owned())),
            input: None,
            prompt: None,
            timeout: Duration::from_secs(30),
        };
        let workers = workers_with(&app, ProviderRoles::none().with(depth));
        let clip = create(name).await;
        assert_eq!(
            double.creates(),
            calls,
            "{model}: the depth model was asked"
        );
        let notes = clip["notes"].as_array().cloned().unwrap_or_default();
        assert_eq!(notes.len(), 1, "{model}: {clip}");
        let note = notes[0].as_str().unwrap_or_default();
        assert!(
            note.contains(says) && note.ends_with("the clip was drawn with the flat camera"),
            "{model}: {note}"
        );
        assert!(clip.get("generated").is_none(), "{model}: {clip}");
        let drawn = quarters(&app, clip["clip_url"].as_str().expect("url"));
        for (got, want) in drawn.iter().zip(&flat[name]) {
            for c in 0..3 {
                assert!(
                    (got[c] - want[c]).abs() < 1.0,
                    "{model}: {drawn:?} against the flat clip's {:?}",
                    flat[name]
                );
            }
        }
        workers.shutdown().await;
    }
    app.stop().await;
}
