//! Crash safety of the render queue with the real binary, on SQLite and PostgreSQL: `kill -9`
//! of `stillreel serve` in the middle of a render, a restart, and the video completes with
//! every clip recorded once, the clips stored before the crash reused rather than rendered
//! again, and the dead process's scratch folder swept.

mod common;
#[path = "../../stillreel-render/tests/common/procs.rs"]
mod procs;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use common::process::{self, bin, free_port, kill_group, request};
use common::{Backend, TestDb, json_body};
use serde_json::Value;
use stillreel_core::builder::{CreateVideoBuilder, speed_ramp};
use stillreel_server::Db;
use stillreel_server::queue::{self, JobKind};
use stillreel_server::worker::kinds;

/// `stillreel serve` with one slot and a 3 s lease, serving the bundled samples.
fn serve(db: &TestDb, port: u16, log: &Path) -> Child {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let samples = samples.to_str().expect("samples path");
    process::serve(db, port, log, &[("STILLREEL_SAMPLES_DIR", samples)])
}

/// `POST /create_video`; the new video's uuid.
fn create_video(port: u16, key: &str, body: &Value) -> String {
    let (status, created) =
        request(port, "POST", "/api/v1/create_video", key, Some(body)).expect("create");
    assert_eq!(status, 200, "{created}");
    created["uuid"].as_str().expect("uuid").to_owned()
}

fn get_video(port: u16, key: &str, uuid: &str) -> Value {
    let (status, json) = request(
        port,
        "GET",
        &format!("/api/v1/get_video?uuid={uuid}"),
        key,
        None,
    )
    .expect("server answers");
    assert_eq!(status, 200, "{json}");
    json
}

fn clip_file(data_dir: &Path, clip_url: &str) -> PathBuf {
    let key = clip_url
        .split_once("/files/")
        .map(|(_, k)| k)
        .expect("clip url under /files/");
    data_dir.join("media").join(key)
}

fn probe_duration(path: &Path) -> f64 {
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "format=duration",
            "-of",
            "csv=p=0",
        ])
        .arg(path)
        .output()
        .expect("run ffprobe");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("duration")
}

/// Creates an account with the CLI (no server running) and returns its API key.
/// The per-process scratch folders under `work/`.
fn node_dirs(work: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(work)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

fn create_account(db: &TestDb, name: &str) -> String {
    let out = bin(db)
        .args(["accounts", "create", name])
        .output()
        .expect("accounts create");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let account: Value = serde_json::from_slice(&out.stdout).expect("account json");
    account["api_key"].as_str().expect("api_key").to_owned()
}

#[test]
fn kill_9_mid_render_then_restart_completes_without_rendering_a_clip_twice_sqlite() {
    kill_9_mid_render_then_restart(Backend::Sqlite);
}

#[test]
fn kill_9_mid_render_then_restart_completes_without_rendering_a_clip_twice_postgres() {
    kill_9_mid_render_then_restart(Backend::Postgres);
}

fn kill_9_mid_render_then_restart(backend: Backend) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    // PostgreSQL only when STILLREEL_TEST_PG_URL is set (the test command sets it).
    let Some(db) = runtime.block_on(TestDb::new(backend)) else {
        return;
    };
    let data_dir = db.dir.path().to_owned();
    let log = data_dir.join("serve.log");
    let show_log = || std::fs::read_to_string(&log).unwrap_or_default();

    let key = create_account(&db, "crash");

    let port = free_port();
    let mut server = serve(&db, port, &log);
    let sample = |name: &str| format!("http://127.0.0.1:{port}/samples/{name}");
    let body = json_body(
        &CreateVideoBuilder::new()
            .image_urls([
                sample("house-colonial.jpg"),
                sample("house-bungalow.jpg"),
                sample("living-room.png"),
            ])
            .build(),
    );
    let uuid = create_video(port, &key, &body);

    // Wait until some, not all, clips are stored, then crash.
    let started = Instant::now();
    let before = loop {
        let video = get_video(port, &key, &uuid);
        let listed = video["video_clips"].as_array().map_or(0, Vec::len);
        assert_ne!(
            video["status"],
            "complete",
            "the video completed before the crash could happen; log:\n{}",
            show_log()
        );
        assert_ne!(video["status"], "error", "{video}\n{}", show_log());
        // A clip recorded, and the next one's render started (its job folder exists).
        let rendering = node_dirs(&data_dir.join("work")).iter().any(|dir| {
            std::fs::read_dir(dir).is_ok_and(|entries| {
                entries
                    .filter_map(Result::ok)
                    .any(|e| e.file_name().to_string_lossy().starts_with("job-"))
            })
        });
        if listed >= 1 && rendering {
            break video;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no clip after 120 s: {video}\n{}",
            show_log()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = kill_group(&mut server, "-KILL");
    // The killed process leaves its scratch folder behind: `work/<its node id>/job-…`.
    let work = data_dir.join("work");
    let left_behind = node_dirs(&work);
    assert_eq!(left_behind.len(), 1, "{left_behind:?}");
    assert!(
        std::fs::read_dir(&left_behind[0])
            .expect("scratch folder")
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with("job-")),
        "the killed render's folder is there"
    );
    let stored_before: Vec<(String, PathBuf, u64, i64)> = before["video_clips"]
        .as_array()
        .expect("clips")
        .iter()
        .map(|c| {
            let url = c["clip_url"].as_str().expect("clip_url").to_owned();
            let path = clip_file(&data_dir, &url);
            let meta = std::fs::metadata(&path).expect("stored clip exists");
            (
                url,
                path,
                meta.ino(),
                meta.mtime_nsec() + meta.mtime() * 1_000_000_000,
            )
        })
        .collect();
    assert!(
        stored_before.len() < 3,
        "every clip was stored before the crash: {before}"
    );

    // Restart: the lease runs out, the job is rescued and resumes. The new process kills the
    // dead one's ffmpeg (in a process group of its own, it outlived the group's kill -9)
    // when it sweeps the dead scratch folder at start.
    let mut server = serve(&db, port, &log);
    let swept = Instant::now();
    while !procs::ffmpeg_running_in(&left_behind[0]).is_empty() {
        assert!(
            swept.elapsed() < Duration::from_secs(5),
            "the dead worker's ffmpeg still runs after the restart\n{}",
            show_log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let started = Instant::now();
    let done = loop {
        let video = get_video(port, &key, &uuid);
        if video["status"] == "complete" {
            break video;
        }
        assert_ne!(video["status"], "error", "{video}\n{}", show_log());
        assert!(
            started.elapsed() < Duration::from_secs(150),
            "not complete 150 s after the restart: {video}\n{}",
            show_log()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    // The new process removed the dead one's scratch folder when it started.
    let now = node_dirs(&work);
    assert!(
        !now.contains(&left_behind[0]),
        "the dead process's scratch folder is gone: {now:?}"
    );
    assert_eq!(now.len(), 1, "only the running process's own: {now:?}");
    let exit = kill_group(&mut server, "-TERM");
    assert!(
        exit.success(),
        "SIGTERM ends serve cleanly: {exit}\n{}",
        show_log()
    );
    // And a clean stop leaves no scratch folder at all.
    assert_eq!(node_dirs(&work), Vec::<PathBuf>::new(), "{}", show_log());

    let clips = done["video_clips"].as_array().expect("clips");
    assert_eq!(clips.len(), 3, "{done}");
    let mut ids: Vec<&str> = clips
        .iter()
        .map(|c| c["uuid"].as_str().unwrap_or(""))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 3, "clip records are unique: {done}");
    let mut urls: Vec<&str> = clips
        .iter()
        .map(|c| c["clip_url"].as_str().unwrap_or(""))
        .collect();
    urls.sort_unstable();
    urls.dedup();
    assert_eq!(urls.len(), 3, "clip files are unique: {done}");
    for (url, path, ino, mtime) in &stored_before {
        assert!(
            clips.iter().any(|c| c["clip_url"] == url.as_str()),
            "{url} still listed"
        );
        let meta = std::fs::metadata(path).expect("clip still stored");
        assert_eq!(
            (meta.ino(), meta.mtime_nsec() + meta.mtime() * 1_000_000_000),
            (*ino, *mtime),
            "{url} was rendered again after the restart"
        );
    }
    for clip in clips {
        let path = clip_file(&data_dir, clip["clip_url"].as_str().expect("clip_url"));
        let d = probe_duration(&path);
        assert!((d - 5.0).abs() <= 0.1, "clip duration {d}");
    }
    let video = clip_file(&data_dir, done["video_url"].as_str().expect("video_url"));
    let d = probe_duration(&video);
    assert!((d - 15.0).abs() <= 0.1, "video duration {d}");

    // The job graph, every job done: prepare, one clip job per clip, the stitch.
    let jobs = runtime.block_on(async {
        let db = Db::connect(&db.config).await.expect("connect");
        let id = uuid.parse().expect("uuid");
        let jobs = queue::jobs_of_video(&db, id).await.expect("jobs");
        db.close().await;
        jobs
    });
    let kinds: Vec<JobKind> = jobs.iter().map(|j| j.0).collect();
    assert_eq!(
        kinds,
        vec![
            kinds::PREPARE,
            kinds::CLIP,
            kinds::CLIP,
            kinds::CLIP,
            kinds::STITCH
        ],
        "{jobs:?}"
    );
    assert!(jobs.iter().all(|j| j.1 == "done"), "{jobs:?}");
}

#[test]
fn sigterm_mid_render_lets_the_render_finish_before_exit() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let db = runtime
        .block_on(TestDb::new(Backend::Sqlite))
        .expect("sqlite test db");
    let data_dir = db.dir.path().to_owned();
    let log = data_dir.join("serve.log");
    let show_log = || std::fs::read_to_string(&log).unwrap_or_default();
    let key = create_account(&db, "term");

    let port = free_port();
    let mut server = serve(&db, port, &log);
    let body = json_body(
        &CreateVideoBuilder::new()
            .image_urls([format!(
                "http://127.0.0.1:{port}/samples/house-bungalow.jpg"
            )])
            .build(),
    );
    let uuid = create_video(port, &key, &body);
    let started = Instant::now();
    // Until the clip renders (its progress is past prepare's share).
    while get_video(port, &key, &uuid)["progress"]
        .as_u64()
        .unwrap_or(0)
        <= 5
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{}",
            show_log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // SIGTERM to the server alone (not its ffmpeg): it stops claiming, finishes the clip.
    let status = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let exit = server.wait().expect("wait for the server");
    assert!(exit.success(), "{exit}\n{}", show_log());

    let (video, jobs) = runtime.block_on(async {
        let db = Db::connect(&db.config).await.expect("connect");
        let id = uuid.parse().expect("uuid");
        let input = stillreel_server::repo::render::render_input(&db, id)
            .await
            .expect("input")
            .expect("video");
        let jobs = queue::jobs_of_video(&db, id).await.expect("jobs");
        db.close().await;
        (input.video_key, jobs)
    });
    // The clip that was rendering finished and was recorded; the stitch it enqueued waits
    // in the queue for the next worker (this one stopped claiming).
    let states: Vec<(JobKind, &str)> = jobs.iter().map(|j| (j.0, j.1.as_str())).collect();
    assert_eq!(
        states,
        vec![
            (kinds::PREPARE, "done"),
            (kinds::CLIP, "done"),
            (kinds::STITCH, "queued")
        ],
        "finished before exit: {jobs:?}\n{}",
        show_log()
    );
    assert!(video.is_none(), "the stitch has not run");

    // The next start stitches it.
    let server = serve(&db, port, &log);
    let started = Instant::now();
    let done = loop {
        let video = get_video(port, &key, &uuid);
        if video["status"] == "complete" {
            break video;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{video}\n{}",
            show_log()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut server = server;
    let _ = kill_group(&mut server, "-TERM");
    let d = probe_duration(&clip_file(
        &data_dir,
        done["video_url"].as_str().expect("url"),
    ));
    assert!((d - 5.0).abs() <= 0.1, "video duration {d}");
}

#[test]
fn kill_9_during_every_attempt_ends_the_video_and_its_branding_sqlite() {
    kill_9_during_every_attempt(Backend::Sqlite);
}

#[test]
fn kill_9_during_every_attempt_ends_the_video_and_its_branding_postgres() {
    kill_9_during_every_attempt(Backend::Postgres);
}

/// The machine dies during each of a job's three attempts. The job ends `failed`, and with it
/// the video and its branding end in `error` (they used to stay `in_progress` and `queued`).
fn kill_9_during_every_attempt(backend: Backend) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let Some(db) = runtime.block_on(TestDb::new(backend)) else {
        return;
    };
    let data_dir = db.dir.path().to_owned();
    let log = data_dir.join("serve.log");
    let show_log = || std::fs::read_to_string(&log).unwrap_or_default();
    let key = create_account(&db, "crash-thrice");
    let port = free_port();
    let sample = |name: &str| format!("http://127.0.0.1:{port}/samples/{name}");
    // One clip, so every kill lands in an attempt at the same job (the clip's).
    let body = json_body(
        &CreateVideoBuilder::new()
            .image_urls([sample("house-colonial.jpg")])
            .branding(speed_ramp())
            .build(),
    );
    let claimed = || {
        show_log()
            .lines()
            .filter(|l| l.contains("job claimed") && l.contains("\"clip\""))
            .count()
    };
    let mut uuid = None;
    for attempt in 1..=3 {
        let mut server = serve(&db, port, &log);
        let id = uuid
            .get_or_insert_with(|| create_video(port, &key, &body))
            .clone();
        let started = Instant::now();
        while claimed() < attempt {
            let video = get_video(port, &key, &id);
            assert_ne!(video["status"], "complete", "{video}");
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "attempt {attempt} never started: {video}\n{}",
                show_log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = kill_group(&mut server, "-KILL");
    }
    let id = uuid.expect("created");
    let mut server = serve(&db, port, &log);
    let started = Instant::now();
    let ended = loop {
        let video = get_video(port, &key, &id);
        if video["status"] == "error" {
            break video;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "still {} 60 s after the last crash: {video}\n{}",
            video["status"],
            show_log()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let _ = kill_group(&mut server, "-TERM");
    assert_eq!(ended["error"]["code"], "render_failed", "{ended}");
    assert_eq!(
        ended["error"]["message"], "rendering was interrupted 3 times",
        "{ended}"
    );
    assert_eq!(ended["branding"]["status"], "error", "{ended}");
    assert_eq!(
        ended["branding"]["error"]["code"], "render_failed",
        "{ended}"
    );
}
