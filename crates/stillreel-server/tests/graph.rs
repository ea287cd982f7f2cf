//! The render job graph on SQLite and PostgreSQL: prepare → one clip job per image → stitch,
//! end to end with real ffmpeg (every clip checked with ffprobe), and the queue's rules for
//! it without ffmpeg: the stitch is enqueued by the last clip's completion only, claims take
//! started videos first, a stale lease token records nothing, a clip that fails for good
//! fails its video and cancels its siblings, and progress adds up over clips, never down.

mod common;
#[path = "../../stillreel-render/tests/common/procs.rs"]
mod procs;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{TestApp, create_body};
use serde_json::{Value, json};
use stillreel_camera::geometry::clip_plan::Motion;
use stillreel_camera::input::ExifOrientation;
use stillreel_core::JobError;
use stillreel_core::media::MediaFormat;
use stillreel_render::{Prepared, StoredClip, StoredInput, StoredVideo};
use stillreel_server::config::Config;
use stillreel_server::db::Db;
use stillreel_server::queue::{self, Job, JobKind, NewJob};
use stillreel_server::repo::graph;
use stillreel_server::repo::render;
use stillreel_server::worker::kinds::{self, RenderedClip};
use stillreel_server::worker::{self, Failed, Failure, Recorded, WorkerSettings};
use uuid::Uuid;

both_backends!(
    mod rendered, configured by samples:
    a_three_clip_video_renders_through_the_graph,
    a_clip_over_the_job_time_limit_is_stopped_and_retried,
);
both_backends!(
    the_last_clip_completion_enqueues_the_stitch_and_progress_adds_up,
    a_stale_lease_token_cannot_complete,
    an_abandoned_attempts_stored_files_are_swept,
    claims_finish_started_videos_first,
    a_clip_failing_for_good_fails_the_video_and_cancels_its_siblings,
    a_queued_render_job_runs_as_a_prepare,
    enqueueing_notifies_listeners_on_postgres,
);

const LEASE: Duration = Duration::from_secs(30);

fn samples(config: &mut Config) {
    config.samples_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
}

/// Runs one statement on the writer.
async fn exec(db: &Db, sql: &str) -> u64 {
    let sql = sqlx::AssertSqlSafe(sql.to_owned());
    match db {
        Db::Sqlite { write, .. } => sqlx::query(sql)
            .execute(write)
            .await
            .map(|r| r.rows_affected()),
        Db::Postgres(pool) => sqlx::query(sql)
            .execute(pool)
            .await
            .map(|r| r.rows_affected()),
    }
    .expect("statement")
}

/// ffprobe's facts of the first stream of a type: frames counted.
fn probe(path: &Path) -> Value {
    let out = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-count_frames",
            "-show_streams",
            "-show_format",
        ])
        .args(["-of", "json"])
        .arg(path)
        .output()
        .expect("run ffprobe");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("ffprobe json")
}

fn streams_of(probe: &Value, kind: &str) -> Vec<Value> {
    probe["streams"]
        .as_array()
        .expect("streams")
        .iter()
        .filter(|s| s["codec_type"] == kind)
        .cloned()
        .collect()
}

async fn download(app: &TestApp, url: &str, dir: &Path, name: &str) -> PathBuf {
    let path = url.strip_prefix(&app.base).expect("a URL of the server");
    let r = app.get(path, "").await;
    assert_eq!(r.status, 200, "GET {url}");
    let file = dir.join(name);
    std::fs::write(&file, &r.bytes).expect("write");
    file
}

async fn a_three_clip_video_renders_through_the_graph(app: TestApp) {
    let renderer = worker::build_renderer(&app.state).expect("renderer");
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 2;
    settings.idle_poll = Duration::from_millis(100);
    let workers = worker::start(app.state.services.clone(), renderer, settings);
    let key = app.account().await.api_key;
    let sample = |name: &str| format!("{}/samples/{name}", app.base);
    let body = json!({
        "image_inputs": [
            {"image_url": sample("house-colonial.jpg"), "camera_motion": "auto"},
            {"image_url": sample("living-room.png"), "camera_motion": "orbit-left"},
            {"image_url": sample("house-bungalow.jpg")},
        ],
        "orientation": "landscape",
        "resolution": "720p",
    });
    let r = app.post("/api/v1/create_video", &key, &body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let uuid = r.json["uuid"].as_str().expect("uuid").to_owned();

    // Status never back, progress never down, while clips render on two slots.
    let started = Instant::now();
    let mut last = 0;
    let mut seen = Vec::new();
    let done = loop {
        let v = app
            .get(&format!("/api/v1/get_video?uuid={uuid}"), &key)
            .await;
        let progress = v.json["progress"].as_u64().expect("progress");
        assert!(progress >= last, "progress went down: {last} → {progress}");
        assert!(progress <= 100);
        last = progress;
        seen.push(progress);
        match v.json["status"].as_str() {
            Some("complete") => break v.json,
            Some("error") => panic!("video failed: {}", v.json),
            _ => {}
        }
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "not done: {}",
            v.json
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(done["progress"], 100);
    seen.dedup();
    assert!(seen.len() > 3, "progress moved in steps: {seen:?}");

    // The graph: one prepare, one clip job per index, one stitch; all done.
    let id = Uuid::parse_str(&uuid).expect("uuid");
    let jobs = queue::graph_of_video(app.db(), id).await.expect("jobs");
    let kinds: Vec<(JobKind, Option<usize>, &str)> = jobs
        .iter()
        .map(|j| (j.kind, j.clip_index, j.state.as_str()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (kinds::PREPARE, None, "done"),
            (kinds::CLIP, Some(0), "done"),
            (kinds::CLIP, Some(1), "done"),
            (kinds::CLIP, Some(2), "done"),
            (kinds::STITCH, None, "done"),
        ],
        "{jobs:?}"
    );
    // Enqueued by the last clip's completion: after every clip was done.
    let stitch = &jobs[4];
    for clip in &jobs[1..4] {
        assert!(
            stitch.created_at >= clip.updated_at,
            "stitch queued before clip {:?} completed: {jobs:?}",
            clip.clip_index
        );
    }

    // Exactly one recorded clip per index, in input order, 150 frames each, no audio, the
    // motion really used.
    let clips = done["video_clips"].as_array().expect("clips");
    assert_eq!(clips.len(), 3, "{done}");
    let dir = tempfile::tempdir().expect("temp dir");
    let images = [
        "house-colonial.jpg",
        "living-room.png",
        "house-bungalow.jpg",
    ];
    for (i, clip) in clips.iter().enumerate() {
        assert_eq!(clip["image_url"], sample(images[i]).as_str(), "order");
        let motion = clip["camera_motion"].as_str().expect("motion");
        assert!(
            ["push-in", "push-out", "orbit-left", "orbit-right"].contains(&motion),
            "clip {i}: camera_motion {motion:?} is not a motion that was drawn"
        );
        if i == 1 {
            assert_eq!(motion, "orbit-left", "an explicit motion is kept");
        }
        let url = clip["clip_url"].as_str().expect("clip_url");
        let file = download(&app, url, dir.path(), &format!("clip-{i}.mp4")).await;
        let p = probe(&file);
        let video = &streams_of(&p, "video")[0];
        assert_eq!(video["nb_read_frames"], "150", "clip {i}");
        assert_eq!(
            (video["width"].as_u64(), video["height"].as_u64()),
            (Some(1280), Some(720))
        );
        assert!(streams_of(&p, "audio").is_empty(), "clip {i} is silent");
    }
    let mut ids: Vec<&str> = clips.iter().filter_map(|c| c["uuid"].as_str()).collect();
    ids.dedup();
    assert_eq!(ids.len(), 3);

    // The video: 450 frames, the silence mixed once over the whole length.
    let file = download(
        &app,
        done["video_url"].as_str().expect("url"),
        dir.path(),
        "video.mp4",
    )
    .await;
    let p = probe(&file);
    let video = &streams_of(&p, "video")[0];
    assert_eq!(video["nb_read_frames"], "450");
    let audio = streams_of(&p, "audio");
    assert_eq!(audio.len(), 1, "one audio stream");
    let seconds = |s: &Value| {
        s["duration"]
            .as_str()
            .and_then(|d| d.parse::<f64>().ok())
            .expect("duration")
    };
    assert!(
        (seconds(video) - seconds(&audio[0])).abs() <= 1.0 / 30.0,
        "audio and video within a frame: {} vs {}",
        seconds(video),
        seconds(&audio[0])
    );

    // Prepare's checked copies are removed once the video is stitched.
    let mut tx = app.db().begin().await.expect("tx");
    let inputs = graph::prepared_keys_in(&mut tx, id).await.expect("keys");
    drop(tx);
    assert_eq!(inputs.len(), 3, "{inputs:?}");
    let started = Instant::now();
    while inputs
        .iter()
        .any(|k| app.state.storage.size(k).expect("size").is_some())
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "inputs still stored: {inputs:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    workers.shutdown().await;
}

/// A video of `n` images whose prepare job is claimed and finished with fake stored inputs
/// (no fetch, no ffmpeg): its clip jobs are queued.
async fn prepared_video(app: &TestApp, key: &str, n: usize) -> Uuid {
    let r = app.post("/api/v1/create_video", key, &create_body(n)).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let video = Uuid::parse_str(r.json["uuid"].as_str().expect("uuid")).expect("uuid");
    let job = claim_kind(app, "prep", kinds::PREPARE, video).await;
    assert!(render::start_video(app.db(), video).await.expect("start"));
    let prepared = Prepared {
        inputs: (0..n)
            .map(|index| StoredInput {
                index,
                key: format!("videos/{video}/input-{index:03}.jpg"),
                format: MediaFormat::Jpeg,
                upright: Some((4000, 3000)),
                orientation: ExifOrientation(1),
                digest: u64::MAX - index as u64,
            })
            .collect(),
        music: None,
    };
    let recorded = worker::record(
        &app.state,
        &job,
        "prep",
        &kinds::Prepare,
        Some((prepared, Vec::new())),
    )
    .await
    .expect("finish prepare");
    assert!(matches!(recorded, Recorded::Done { .. }), "{recorded:?}");
    video
}

/// Settles a claimed clip job as the runner does after its run rendered `key`.
async fn record_clip(
    app: &TestApp,
    job: &Job,
    worker_id: &str,
    clip_id: Uuid,
    key: &str,
    motion: Option<Motion>,
) -> Recorded {
    let clip = StoredClip {
        index: job.clip_index.expect("index"),
        key: key.to_owned(),
        url_path: String::new(),
        motion,
        seconds: 5.0,
        depth_fallback: None,
    };
    worker::record(
        &app.state,
        job,
        worker_id,
        &kinds::Clip,
        Some(RenderedClip {
            clip_id,
            clip,
            generated: Vec::new(),
            notes: Vec::new(),
        }),
    )
    .await
    .expect("record clip")
}

/// What settling a clip queues: the stitch, when it was the last.
fn then_stitch(video: Uuid, last: bool) -> Recorded {
    Recorded::Done {
        next: if last {
            vec![NewJob::new(video, kinds::STITCH)]
        } else {
            Vec::new()
        },
    }
}

/// Claims jobs until one of `kind` for `video` comes; the others go back to the queue.
async fn claim_kind(app: &TestApp, worker: &str, kind: JobKind, video: Uuid) -> Job {
    let mut others = Vec::new();
    let found = loop {
        let job = queue::claim(app.db(), worker, LEASE)
            .await
            .expect("claim")
            .unwrap_or_else(|| panic!("no {kind:?} job for {video}"));
        if job.kind == kind && job.video_id == video {
            break job;
        }
        others.push(job);
    };
    for job in others {
        assert!(
            queue::release(app.db(), &job, worker)
                .await
                .expect("release")
        );
    }
    found
}

async fn progress_of(app: &TestApp, key: &str, video: Uuid) -> u64 {
    let r = app
        .get(&format!("/api/v1/get_video?uuid={video}"), key)
        .await;
    r.json["progress"].as_u64().expect("progress")
}

async fn the_last_clip_completion_enqueues_the_stitch_and_progress_adds_up(app: TestApp) {
    let key = app.account().await.api_key;
    let video = prepared_video(&app, &key, 3).await;
    let db = app.db();
    let jobs = queue::graph_of_video(db, video).await.expect("jobs");
    let clips: Vec<Option<usize>> = jobs
        .iter()
        .filter(|j| j.kind == kinds::CLIP)
        .map(|j| j.clip_index)
        .collect();
    assert_eq!(clips, vec![Some(0), Some(1), Some(2)], "{jobs:?}");
    assert_eq!(
        progress_of(&app, &key, video).await,
        u64::from(graph::PREPARE_SHARE)
    );

    // Clips run on "different machines": each reports its own progress; the video's is the
    // prepare share plus the mean over the clips, and never goes down.
    let mut claimed = Vec::new();
    for w in 0..3 {
        claimed.push(
            queue::claim(db, &format!("m{w}"), LEASE)
                .await
                .expect("claim")
                .expect("clip"),
        );
    }
    let clip_ids: Vec<Uuid> = {
        let mut ids = Vec::new();
        for job in &claimed {
            let input = graph::clip_input(db, video, job.clip_index.expect("index"))
                .await
                .expect("input")
                .expect("clip");
            assert!(input.input.is_some(), "prepare recorded the input");
            ids.push(input.clip_id);
        }
        ids
    };
    graph::set_clip_progress(db, video, clip_ids[0], 60)
        .await
        .expect("progress");
    assert_eq!(progress_of(&app, &key, video).await, 5 + 90 * 60 / 300);
    graph::set_clip_progress(db, video, clip_ids[1], 30)
        .await
        .expect("progress");
    assert_eq!(progress_of(&app, &key, video).await, 5 + 90 * 90 / 300);
    // A late, lower report changes nothing.
    graph::set_clip_progress(db, video, clip_ids[0], 10)
        .await
        .expect("progress");
    assert_eq!(progress_of(&app, &key, video).await, 5 + 90 * 90 / 300);

    let mut last = progress_of(&app, &key, video).await;
    for (n, job) in claimed.iter().enumerate() {
        let index = job.clip_index.expect("index");
        let recorded = record_clip(
            &app,
            job,
            &format!("m{n}"),
            clip_ids[n],
            &format!("videos/{video}/clip-{index:03}-{}.mp4", job.token),
            Some(Motion::PushOut),
        )
        .await;
        let last_one = n == 2;
        assert_eq!(recorded, then_stitch(video, last_one));
        let stitches = queue::graph_of_video(db, video)
            .await
            .expect("jobs")
            .into_iter()
            .filter(|j| j.kind == kinds::STITCH)
            .count();
        assert_eq!(stitches, usize::from(last_one), "after clip {n}");
        let now = progress_of(&app, &key, video).await;
        assert!(now >= last, "progress went down: {last} → {now}");
        last = now;
    }
    assert_eq!(last, 95, "every clip done: prepare + clips");
    let stitch = queue::claim(db, "s", LEASE)
        .await
        .expect("claim")
        .expect("stitch");
    assert_eq!((stitch.kind, stitch.video_id), (kinds::STITCH, video));
    let (keys, music) = graph::stitch_input(db, video).await.expect("stitch input");
    assert_eq!(keys.len(), 3);
    assert!(keys.iter().enumerate().all(|(i, k)| {
        k.as_deref()
            .is_some_and(|k| k.contains(&format!("clip-{i:03}-")))
    }));
    assert_eq!(music, None);
    let stitched = StoredVideo {
        key: format!("videos/{video}/video.mp4"),
        url_path: String::new(),
        seconds: 15.0,
        clips: Vec::new(),
    };
    assert_eq!(
        worker::record(&app.state, &stitch, "s", &kinds::Stitch, Some(stitched))
            .await
            .expect("stitch"),
        Recorded::Done { next: Vec::new() }
    );
    let r = app
        .get(&format!("/api/v1/get_video?uuid={video}"), &key)
        .await;
    assert_eq!(r.json["status"], "complete", "{}", r.json);
    assert_eq!(r.json["progress"], 100);
    let motions: Vec<&str> = r.json["video_clips"]
        .as_array()
        .expect("clips")
        .iter()
        .filter_map(|c| c["camera_motion"].as_str())
        .collect();
    assert_eq!(motions, vec!["push-out"; 3], "the motion used is recorded");
}

async fn a_stale_lease_token_cannot_complete(app: TestApp) {
    let key = app.account().await.api_key;
    let video = prepared_video(&app, &key, 1).await;
    let db = app.db();
    // The worker is paused past its lease: its job is put back and claimed again, by a
    // worker of the same name (a restarted process reusing its id would look the same).
    let short = Duration::from_millis(300);
    let paused = queue::claim(db, "w", short)
        .await
        .expect("claim")
        .expect("clip");
    assert_eq!(paused.kind, kinds::CLIP);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        stillreel_server::repo::sweep::expired_leases(db)
            .await
            .expect("requeue"),
        1
    );
    let current = queue::claim(db, "w", LEASE)
        .await
        .expect("claim")
        .expect("clip again");
    assert_eq!(current.id, paused.id);
    assert_ne!(current.token, paused.token, "every claim has its own token");

    let clip = graph::clip_input(db, video, 0)
        .await
        .expect("input")
        .expect("clip")
        .clip_id;
    let stale_key = format!("videos/{video}/clip-000-{}.mp4", paused.token);
    assert!(
        !queue::heartbeat(db, &paused, "w", LEASE).await.expect("hb"),
        "stale heartbeat"
    );
    assert_eq!(
        record_clip(&app, &paused, "w", clip, &stale_key, None).await,
        Recorded::LeaseLost,
        "the paused worker's completion is rejected"
    );
    assert!(!queue::complete(db, &paused, "w").await.expect("complete"));
    assert!(
        !queue::fail(db, &paused, "w", "late", None)
            .await
            .expect("fail")
    );
    let (keys, _) = graph::stitch_input(db, video).await.expect("keys");
    assert_eq!(keys, vec![None], "nothing recorded by the stale completion");

    let good_key = format!("videos/{video}/clip-000-{}.mp4", current.token);
    assert_eq!(
        record_clip(&app, &current, "w", clip, &good_key, None).await,
        then_stitch(video, true)
    );
    let (keys, _) = graph::stitch_input(db, video).await.expect("keys");
    assert_eq!(keys, vec![Some(good_key)]);
}

/// A worker killed between storing its clip and recording it: the lease sweep takes the job
/// back and notes the attempt; the orphan sweep removes what that attempt stored (the clip and
/// its still), and nothing a record points at.
async fn an_abandoned_attempts_stored_files_are_swept(app: TestApp) {
    let key = app.account().await.api_key;
    let video = prepared_video(&app, &key, 1).await;
    let db = app.db();
    let killed = queue::claim(db, "w", Duration::from_millis(300))
        .await
        .expect("claim")
        .expect("clip");
    let store = |key: &str| {
        let dir = tempfile::tempdir().expect("temp dir");
        let local = dir.path().join("f");
        std::fs::write(&local, key).expect("write");
        app.state.storage.put(&local, key).expect("store");
    };
    let orphan = format!("videos/{video}/clip-000-{}.mp4", killed.token);
    let orphan_still = format!("videos/{video}/clip-000-{}.jpg", killed.token);
    store(&orphan);
    store(&orphan_still);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        stillreel_server::repo::sweep::expired_leases(db)
            .await
            .expect("requeue"),
        1
    );
    let noted = stillreel_server::repo::orphans::abandoned(db, 10)
        .await
        .expect("noted");
    assert_eq!(noted.len(), 1);
    assert_eq!(
        (noted[0].video_id, noted[0].token.as_str()),
        (video, killed.token.as_str())
    );

    // The retry stores and records its own clip before the sweep runs.
    let retry = queue::claim(db, "w", LEASE)
        .await
        .expect("claim")
        .expect("clip again");
    let clip = graph::clip_input(db, video, 0)
        .await
        .expect("input")
        .expect("clip")
        .clip_id;
    let kept = format!("videos/{video}/clip-000-{}.mp4", retry.token);
    store(&kept);
    assert_eq!(
        record_clip(&app, &retry, "w", clip, &kept, None).await,
        then_stitch(video, true)
    );

    let removed = worker::sweep_orphans(&app.state).await.expect("sweep");
    assert_eq!(removed, 2);
    let storage = &app.state.storage;
    assert_eq!(storage.size(&orphan).expect("size"), None);
    assert_eq!(storage.size(&orphan_still).expect("size"), None);
    assert!(
        storage.size(&kept).expect("size").is_some(),
        "the recorded clip stays"
    );
    assert!(
        stillreel_server::repo::orphans::abandoned(db, 10)
            .await
            .expect("noted")
            .is_empty(),
        "a swept attempt is forgotten"
    );
    assert_eq!(worker::sweep_orphans(&app.state).await.expect("sweep"), 0);
}

async fn claims_finish_started_videos_first(app: TestApp) {
    let key = app.account().await.api_key;
    let db = app.db();
    let older = prepared_video(&app, &key, 2).await;
    let newer = prepared_video(&app, &key, 2).await;
    // A third video not prepared yet, and a stitch of the newer video (as if its clips were
    // done) and a branding job of the older one.
    let r = app
        .post("/api/v1/create_video", &key, &create_body(1))
        .await;
    let fresh = Uuid::parse_str(r.json["uuid"].as_str().expect("uuid")).expect("uuid");
    let mut tx = db.begin().await.expect("tx");
    queue::enqueue(&mut tx, newer, kinds::STITCH)
        .await
        .expect("stitch");
    queue::enqueue(&mut tx, older, kinds::BRANDING)
        .await
        .expect("branding");
    tx.commit().await.expect("commit");

    let mut order = Vec::new();
    while let Some(job) = queue::claim(db, "w", LEASE).await.expect("claim") {
        order.push((job.kind, job.video_id, job.clip_index));
    }
    assert_eq!(
        order,
        vec![
            // Stitch and branding first: they finish videos that are nearly done.
            (kinds::BRANDING, older, None),
            (kinds::STITCH, newer, None),
            // Clips of the older video before the newer one's, in index order.
            (kinds::CLIP, older, Some(0)),
            (kinds::CLIP, older, Some(1)),
            (kinds::CLIP, newer, Some(0)),
            (kinds::CLIP, newer, Some(1)),
            // A video not started yet comes last.
            (kinds::PREPARE, fresh, None),
        ]
    );
}

async fn a_clip_failing_for_good_fails_the_video_and_cancels_its_siblings(app: TestApp) {
    let key = app.account().await.api_key;
    let db = app.db();
    let video = prepared_video(&app, &key, 3).await;
    let first = queue::claim(db, "a", LEASE)
        .await
        .expect("claim")
        .expect("clip 0");
    let failing = queue::claim(db, "b", LEASE)
        .await
        .expect("claim")
        .expect("clip 1");
    assert_eq!(failing.clip_index, Some(1));
    let refused = Failure::Permanent(JobError {
        code: "render_failed".to_owned(),
        message: "image_inputs[1].vfx: the provider refused".to_owned(),
        field: Some("image_inputs[1].vfx".to_owned()),
    });
    // A stale token cannot fail it either.
    let mut stale = failing.clone();
    stale.token = "0".repeat(32);
    assert_eq!(
        worker::fail(&app.state, &stale, "b", &kinds::Clip, &refused)
            .await
            .expect("fail"),
        Failed::LeaseLost
    );
    assert_eq!(
        worker::fail(&app.state, &failing, "b", &kinds::Clip, &refused)
            .await
            .expect("fail"),
        Failed::ForGood
    );

    let r = app
        .get(&format!("/api/v1/get_video?uuid={video}"), &key)
        .await;
    assert_eq!(r.json["status"], "error", "{}", r.json);
    assert_eq!(r.json["error"]["code"], "render_failed");
    assert_eq!(r.json["error"]["field"], "image_inputs[1].vfx");
    let states: Vec<(Option<usize>, String)> = queue::graph_of_video(db, video)
        .await
        .expect("jobs")
        .into_iter()
        .filter(|j| j.kind == kinds::CLIP)
        .map(|j| (j.clip_index, j.state))
        .collect();
    assert_eq!(
        states,
        vec![
            (Some(0), "running".to_owned()),
            (Some(1), "failed".to_owned()),
            (Some(2), "cancelled".to_owned()),
        ]
    );
    // The sibling that was running finishes, but revives nothing and enqueues no stitch.
    let clip0 = graph::clip_input(db, video, 0)
        .await
        .expect("input")
        .expect("clip")
        .clip_id;
    let recorded = record_clip(
        &app,
        &first,
        "a",
        clip0,
        &format!("videos/{video}/clip-000-x.mp4"),
        None,
    )
    .await;
    assert_eq!(recorded, then_stitch(video, false));
    assert!(
        queue::claim(db, "c", LEASE).await.expect("claim").is_none(),
        "nothing left to run"
    );
    let r = app
        .get(&format!("/api/v1/get_video?uuid={video}"), &key)
        .await;
    assert_eq!(r.json["status"], "error");

    // A clip whose lease expired on every attempt (the worker killed each time) fails the
    // video the same way, through the lease rescue.
    let video = prepared_video(&app, &key, 2).await;
    exec(
        db,
        "UPDATE jobs SET attempts = max_attempts - 1 WHERE kind = 'clip' AND state = 'queued'",
    )
    .await;
    let dying = queue::claim(db, "d", Duration::from_millis(200))
        .await
        .expect("claim")
        .expect("clip");
    assert_eq!(dying.video_id, video);
    tokio::time::sleep(Duration::from_millis(400)).await;
    stillreel_server::repo::sweep::expired_leases(db)
        .await
        .expect("requeue");
    let r = app
        .get(&format!("/api/v1/get_video?uuid={video}"), &key)
        .await;
    assert_eq!(r.json["status"], "error", "{}", r.json);
    assert_eq!(
        r.json["error"]["message"],
        "rendering was interrupted 3 times"
    );
    let left: Vec<String> = queue::graph_of_video(db, video)
        .await
        .expect("jobs")
        .into_iter()
        .filter(|j| j.kind == kinds::CLIP)
        .map(|j| j.state)
        .collect();
    assert_eq!(left, vec!["failed", "cancelled"]);
}

async fn a_queued_render_job_runs_as_a_prepare(app: TestApp) {
    // A `render` job queued before the job graph existed: the worker treats it as prepare.
    let key = app.account().await.api_key;
    let r = app
        .post("/api/v1/create_video", &key, &create_body(2))
        .await;
    let video = Uuid::parse_str(r.json["uuid"].as_str().expect("uuid")).expect("uuid");
    assert_eq!(
        exec(
            app.db(),
            "UPDATE jobs SET kind = 'render' WHERE kind = 'prepare'"
        )
        .await,
        1
    );
    let job = queue::claim(app.db(), "w", LEASE)
        .await
        .expect("claim")
        .expect("job");
    assert_eq!(job.kind.as_str(), "render");
    assert_eq!(
        job.kind.claim_rank(),
        kinds::PREPARE.claim_rank(),
        "claimed in a prepare's place"
    );
    assert_eq!(
        kinds::builtin().kind_for(job.kind),
        Some(kinds::PREPARE),
        "prepare runs it (its alias)"
    );
    assert!(render::start_video(app.db(), video).await.expect("start"));
    let prepared = Prepared {
        inputs: Vec::new(),
        music: None,
    };
    let recorded = worker::record(
        &app.state,
        &job,
        "w",
        &kinds::Prepare,
        Some((prepared, Vec::new())),
    )
    .await
    .expect("finish");
    assert!(matches!(recorded, Recorded::Done { .. }), "{recorded:?}");
    let clips = queue::graph_of_video(app.db(), video)
        .await
        .expect("jobs")
        .into_iter()
        .filter(|j| j.kind == kinds::CLIP)
        .count();
    assert_eq!(clips, 2);
}

async fn enqueueing_notifies_listeners_on_postgres(app: TestApp) {
    // SQLite has one process and no NOTIFY: polling alone wakes its workers.
    let Db::Postgres(pool) = app.db() else { return };
    let mut listener = sqlx::postgres::PgListener::connect_with(pool)
        .await
        .expect("listener");
    listener
        .listen(queue::NOTIFY_CHANNEL)
        .await
        .expect("listen");
    let key = app.account().await.api_key;
    let r = app
        .post("/api/v1/create_video", &key, &create_body(1))
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    let note = tokio::time::timeout(Duration::from_secs(5), listener.recv())
        .await
        .expect("a notification within 5 s of the enqueue")
        .expect("notification");
    assert_eq!(note.channel(), queue::NOTIFY_CHANNEL);
    // A rolled-back enqueue says nothing.
    let video = Uuid::parse_str(r.json["uuid"].as_str().expect("uuid")).expect("uuid");
    let mut tx = app.db().begin().await.expect("tx");
    queue::enqueue(&mut tx, video, kinds::STITCH)
        .await
        .expect("enqueue");
    drop(tx);
    assert!(
        tokio::time::timeout(Duration::from_millis(500), listener.recv())
            .await
            .is_err(),
        "no notification for a rolled-back job"
    );
}

/// A step that runs past the per-job time limit is stopped: its ffmpeg is killed and the job
/// goes back to the queue with back-off, as a transient failure.
async fn a_clip_over_the_job_time_limit_is_stopped_and_retried(app: TestApp) {
    let renderer = worker::build_renderer(&app.state).expect("renderer");
    let mut settings = WorkerSettings::from_config(&app.state.config);
    settings.workers = 1;
    settings.idle_poll = Duration::from_millis(100);
    // Prepare (local samples) fits; a 1080p clip does not.
    settings.job_time_limit = Duration::from_millis(1500);
    let workers = worker::start(app.state.services.clone(), renderer, settings);
    let key = app.account().await.api_key;
    let body = json!({
        "image_inputs": [{"image_url": format!("{}/samples/house-colonial.jpg", app.base)}],
        "resolution": "1080p",
    });
    let r = app.post("/api/v1/create_video", &key, &body).await;
    assert_eq!(r.status, 200, "{}", r.json);
    let video = Uuid::parse_str(r.json["uuid"].as_str().expect("uuid")).expect("uuid");
    let started = Instant::now();
    let clip = loop {
        let jobs = queue::graph_of_video(app.db(), video).await.expect("jobs");
        if let Some(clip) = jobs
            .iter()
            .find(|j| j.kind == kinds::CLIP && j.state == "queued" && j.last_error.is_some())
        {
            break clip.clone();
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{jobs:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        clip.last_error
            .as_deref()
            .is_some_and(|e| e.contains("limit")),
        "{clip:?}"
    );
    assert_eq!(clip.attempts, 1, "retried later, with back-off");
    let work = worker::work_root(&app.state.config);
    let stopped = Instant::now();
    while !procs::ffmpeg_running_in(&work).is_empty() {
        assert!(
            stopped.elapsed() < Duration::from_secs(2),
            "ffmpeg outlived its job"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let r = app
        .get(&format!("/api/v1/get_video?uuid={video}"), &key)
        .await;
    assert_eq!(r.json["status"], "in_progress", "{}", r.json);
    workers.shutdown().await;
}
