//! The scale-out suite (`scripts/suites/50-scale.sh`, docs/SCALING.md): PostgreSQL, Garage (an
//! S3-compatible store, one node), one API process (`stillreel serve`, `STILLREEL_WORKERS=0`)
//! and three `stillreel worker` processes with data dirs of their own, all real processes
//! started here, sharing only the database and the bucket. Each scenario is one `#[ignore]`d test (plain `cargo test` does
//! not run them; the suite runs them with `-- --ignored --test-threads=1`, since one of them
//! restarts the machine's PostgreSQL):
//!
//! - `a_three_videos_on_three_workers`: 3 videos × 6 clips complete;
//! - `b_kill_9_mid_clip`: a worker's process group killed with `-9` mid-clip;
//! - `c_sigstop_past_the_lease`: a worker paused past its lease, then continued;
//! - `d_postgres_restart`: PostgreSQL restarted mid-run;
//! - `e_object_store_outage`: Garage killed with `-9` mid-run and started again on the same
//!   data and port.
//!
//! Every finished video is checked from outside only: the HTTP API (every `clip_url` and the
//! `video_url` through their `302` to a presigned GET), ffprobe of what they lead to (150
//! frames a clip, 150 × 6 for the video, h264 1280×720, audio and video stream lengths within
//! one frame) and, where nothing else can tell, the `clips` and `jobs` tables (exactly one
//! clip record per index; leases). Nothing here depends on how a video's render is split into
//! jobs, so the suite holds for one render job per video as for a graph of clip jobs.

mod common;

use std::collections::BTreeSet;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::garage::Garage;
use common::process::{free_port, get_url, header, http, http_body, wait_healthy};
use common::{Backend, TestDb};
use serde_json::{Value, json};
use stillreel_render::store::storage::Storage;
use stillreel_server::config::DatabaseConfig;

const PREFIX: &str = "media";
/// `STILLREEL_JOB_LEASE_SECS` of the workers: short, so the scenarios that lose a worker stay
/// short. Heartbeats every third of it; expired leases are swept every half of it.
const LEASE_SECS: u64 = 4;
/// Lease plus one sweep (docs/SERVER.md: a dead worker's job runs again within this).
const RESCUE: Duration = Duration::from_secs(LEASE_SECS + LEASE_SECS / 2);
/// Slack on top of [`RESCUE`] for a loaded 2-core machine (clock ticks, a busy database).
const SLACK: Duration = Duration::from_secs(4);
const CLIPS: usize = 6;
const FRAMES_PER_CLIP: u64 = 150;
const FPS: f64 = 30.0;
const WAIT_VIDEO: Duration = Duration::from_secs(240);
const SAMPLES: [&str; 6] = [
    "house-colonial.jpg",
    "house-bungalow.jpg",
    "house-modern.webp",
    "living-room.png",
    "house-farm-exif-rotated.jpg",
    "house-townhouse-portrait.jpg",
];

// ---------------------------------------------------------------------------------------
// Processes

/// The `stillreel` binary with a clean environment.
fn bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stillreel"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("RUST_LOG", "info,sqlx=warn");
    cmd
}

/// Starts `stillreel <command>` in a process group of its own (its ffmpeg children inherit
/// it), appending its log to `log`.
fn spawn(command: &str, env: &[(&'static str, String)], log: &Path) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("log file");
    bin()
        .arg(command)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("start stillreel {command}: {e}"))
}

fn signal_group(pgid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), "--", &format!("-{pgid}")])
        .status()
        .expect("kill");
    assert!(status.success(), "kill -{signal} -{pgid}");
}

/// Pids of the processes whose parent is `ppid`, from /proc.
fn children_of(ppid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let parent = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        if parent == Some(ppid) {
            out.push(pid);
        }
    }
    out
}

fn command_name(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|c| c.trim().to_owned())
}

/// Whether `pid` is a live process (not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

/// The ffmpeg processes below `pid` (children, grandchildren: ffmpeg may run under prlimit).
fn ffmpegs_below(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        for child in children_of(p) {
            if command_name(child).as_deref() == Some("ffmpeg") {
                found.push(child);
            }
            todo.push(child);
        }
    }
    found
}

// ---------------------------------------------------------------------------------------
// The deployment

struct Worker {
    child: Child,
    dir: tempfile::TempDir,
    log: PathBuf,
    env: Vec<(&'static str, String)>,
}

impl Worker {
    fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// The worked deployment of docs/SCALING.md with three workers.
struct Cluster {
    rt: tokio::runtime::Runtime,
    pool: sqlx::PgPool,
    api: Child,
    api_port: u16,
    api_log: PathBuf,
    public: String,
    key: String,
    workers: Vec<Worker>,
    garage: Garage,
    /// Dropped last: the database and the logs' folder.
    db: TestDb,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for w in &mut self.workers {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", w.child.id())])
                .status();
            let _ = w.child.wait();
        }
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.api.id())])
            .status();
        let _ = self.api.wait();
        self.rt.block_on(self.pool.close());
    }
}

impl Cluster {
    fn start(workers: usize) -> Option<Cluster> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let db = rt.block_on(TestDb::new(Backend::Postgres))?;
        let garage = Garage::start()?;
        let DatabaseConfig::Postgres(db_url) = &db.config else {
            panic!("postgres")
        };
        let pool = rt
            .block_on(
                sqlx::postgres::PgPoolOptions::new()
                    .max_connections(2)
                    .connect(db_url),
            )
            .expect("connect to the test database");
        let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
        let api_dir = db.dir.path().join("api");
        std::fs::create_dir_all(&api_dir).expect("api dir");
        let api_port = free_port();
        let public = format!("http://127.0.0.1:{api_port}");
        let mut common_env = garage.env(PREFIX);
        common_env.push(("STILLREEL_DATABASE_URL", db_url.clone()));
        common_env.push(("STILLREEL_PUBLIC_URL", public.clone()));
        common_env.push(("STILLREEL_SAMPLES_DIR", samples.display().to_string()));
        common_env.push(("STILLREEL_JOB_LEASE_SECS", LEASE_SECS.to_string()));
        // The per-account cap holds across every process, but its default is half of *this
        // process's* slots: one-slot workers would run one job of an account at a time in
        // the whole fleet. A split deployment sets it for the fleet (docs/SCALING.md).
        common_env.push(("STILLREEL_ACCOUNT_MAX_RUNNING", "8".to_owned()));

        let mut api_env = common_env.clone();
        api_env.push(("STILLREEL_DATA_DIR", api_dir.display().to_string()));
        api_env.push(("STILLREEL_LISTEN", format!("127.0.0.1:{api_port}")));
        api_env.push(("STILLREEL_WORKERS", "0".to_owned()));
        api_env.push((
            "STILLREEL_WEB_DIR",
            api_dir.join("no-web").display().to_string(),
        ));
        let api_log = db.dir.path().join("api.log");
        let api = spawn("serve", &api_env, &api_log);
        wait_healthy(api_port, "the API", &api_log);

        let out = bin()
            .args(["accounts", "create", "scale-out"])
            .env("STILLREEL_DATABASE_URL", db_url)
            .env("STILLREEL_DATA_DIR", &api_dir)
            .output()
            .expect("accounts create");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let account: Value = serde_json::from_slice(&out.stdout).expect("account");
        let key = account["api_key"].as_str().expect("key").to_owned();

        let mut cluster = Cluster {
            rt,
            pool,
            api,
            api_port,
            api_log,
            public,
            key,
            workers: Vec::new(),
            garage,
            db,
        };
        for n in 0..workers {
            let dir = tempfile::tempdir().expect("worker dir");
            let port = free_port();
            let mut env = common_env.clone();
            env.push(("STILLREEL_DATA_DIR", dir.path().display().to_string()));
            env.push(("STILLREEL_WORKERS", "1".to_owned()));
            env.push(("STILLREEL_WORKER_LISTEN", format!("127.0.0.1:{port}")));
            let log = cluster.db.dir.path().join(format!("worker-{n}.log"));
            let child = spawn("worker", &env, &log);
            wait_healthy(port, &format!("worker {n}"), &log);
            cluster.workers.push(Worker {
                child,
                dir,
                log,
                env,
            });
        }
        Some(cluster)
    }

    /// Every process's log, for failure messages.
    fn logs(&self) -> String {
        let mut out = format!(
            "--- api log\n{}",
            std::fs::read_to_string(&self.api_log).unwrap_or_default()
        );
        for (n, w) in self.workers.iter().enumerate() {
            out.push_str(&format!(
                "\n--- worker {n} log ({})\n{}",
                w.dir.path().display(),
                std::fs::read_to_string(&w.log).unwrap_or_default()
            ));
        }
        out
    }

    /// A request to the API: status and JSON body; `None` while the API cannot answer.
    fn api(&self, method: &str, path: &str, body: Option<&Value>) -> Option<(u16, Value)> {
        let body = body.map(Value::to_string).unwrap_or_default();
        let (status, _, bytes) = http_body(
            self.api_port,
            method,
            path,
            &[
                ("Authorization", &self.key),
                ("Content-Type", "application/json"),
            ],
            body.as_bytes(),
        )?;
        Some((
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        ))
    }

    /// Creates a 6-clip 720p landscape video of the bundled samples (served by the API at
    /// `/samples/`, read by the workers from their own copy); returns its uuid.
    fn create_video(&self, first_sample: usize) -> String {
        let images: Vec<Value> = (0..CLIPS)
            .map(|i| {
                let name = SAMPLES[(first_sample + i) % SAMPLES.len()];
                json!({"image_url": format!("{}/samples/{name}", self.public)})
            })
            .collect();
        let body = json!({
            "image_inputs": images,
            "orientation": "landscape",
            "resolution": "720p",
        });
        let (status, created) = self
            .api("POST", "/api/v1/create_video", Some(&body))
            .expect("the API answers");
        assert_eq!(status, 200, "{created}");
        created["uuid"].as_str().expect("uuid").to_owned()
    }

    /// The video's record; `None` while the API cannot answer (the database restarting).
    fn get_video(&self, uuid: &str) -> Option<Value> {
        match self.api("GET", &format!("/api/v1/get_video?uuid={uuid}"), None) {
            Some((200, video)) => Some(video),
            _ => None,
        }
    }

    /// Waits for every video of `uuids` to complete; fails on an `error` status.
    fn wait_complete(&self, uuids: &[String], within: Duration) -> Vec<Value> {
        let started = Instant::now();
        let mut done: Vec<Option<Value>> = vec![None; uuids.len()];
        while done.iter().any(Option::is_none) {
            for (i, uuid) in uuids.iter().enumerate() {
                if done[i].is_some() {
                    continue;
                }
                if let Some(video) = self.get_video(uuid) {
                    assert_ne!(video["status"], "error", "{video}\n{}", self.logs());
                    if video["status"] == "complete" {
                        done[i] = Some(video);
                    }
                }
            }
            assert!(
                started.elapsed() < within,
                "not all complete after {within:?}: {:?}\n{}",
                uuids
                    .iter()
                    .map(|u| self.get_video(u).map(|v| v["status"].clone()))
                    .collect::<Vec<_>>(),
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(300));
        }
        done.into_iter().map(Option::unwrap_or_default).collect()
    }

    /// The index of a worker with an ffmpeg running (mid-clip), waiting for one.
    fn worker_mid_clip(&self) -> usize {
        let started = Instant::now();
        loop {
            for (n, w) in self.workers.iter().enumerate() {
                if !ffmpegs_below(w.pid()).is_empty() {
                    return n;
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no worker started an ffmpeg within 60 s\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Jobs of `video` that are running: (id, lease owner, lease expiry in ms).
    fn running_jobs(&self, video: &str) -> Vec<(i64, String, i64)> {
        let video: uuid::Uuid = video.parse().expect("uuid");
        self.rt
            .block_on(
                sqlx::query_as::<_, (i64, Option<String>, Option<i64>)>(
                    "SELECT id, lease_owner, lease_expires_at FROM jobs
                     WHERE video_id = $1 AND state = 'running'",
                )
                .bind(video)
                .fetch_all(&self.pool),
            )
            .expect("read jobs")
            .into_iter()
            .map(|(id, owner, expires)| (id, owner.unwrap_or_default(), expires.unwrap_or(0)))
            .collect()
    }

    /// Storage keys of the clips of `videos` recorded so far.
    fn stored_clip_keys(&self, videos: &[String]) -> Vec<String> {
        let ids: Vec<uuid::Uuid> = videos.iter().map(|v| v.parse().expect("uuid")).collect();
        self.rt
            .block_on(
                sqlx::query_scalar(
                    "SELECT clip_key FROM clips
                     WHERE video_id = ANY($1) AND clip_key IS NOT NULL",
                )
                .bind(ids)
                .fetch_all(&self.pool),
            )
            .expect("read clips")
    }

    /// Waits until none of `held` (jobs running under a worker that no longer renews its
    /// leases) is still running under the same lease: requeued and taken by another
    /// worker, or finished by one. Returns how long that took.
    fn wait_rescued(&self, held: &[(i64, String, i64)], since: Instant) -> Duration {
        loop {
            let still: Vec<i64> = self.rt.block_on(async {
                let mut still = Vec::new();
                for (id, owner, expires) in held {
                    let same: Option<(i64,)> = sqlx::query_as(
                        "SELECT id FROM jobs WHERE id = $1 AND state = 'running'
                         AND lease_owner = $2 AND lease_expires_at <= $3",
                    )
                    .bind(id)
                    .bind(owner)
                    .bind(expires)
                    .fetch_optional(&self.pool)
                    .await
                    .expect("read jobs");
                    if same.is_some() {
                        still.push(*id);
                    }
                }
                still
            });
            if still.is_empty() {
                return since.elapsed();
            }
            assert!(
                since.elapsed() < RESCUE + SLACK,
                "jobs {still:?} still held by the lost worker after {:?} (lease + sweep = {RESCUE:?})\n{}",
                since.elapsed(),
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Checks a complete video from outside: one clip record per index, every `clip_url`
    /// and the `video_url` lead through the API's `302` to MP4s with the right frames; the
    /// video has audio as long as its picture (within one frame), the clips none.
    fn check_video(&self, video: &Value) {
        let uuid = video["uuid"].as_str().expect("uuid");
        let id: uuid::Uuid = uuid.parse().expect("uuid");
        let rows: Vec<(i64, i64, i64)> = self
            .rt
            .block_on(
                sqlx::query_as(
                    "SELECT position, COUNT(*), COUNT(clip_key) FROM clips
                     WHERE video_id = $1 GROUP BY position ORDER BY position",
                )
                .bind(id)
                .fetch_all(&self.pool),
            )
            .expect("read clips");
        let expected: Vec<(i64, i64, i64)> = (0..CLIPS as i64).map(|i| (i, 1, 1)).collect();
        assert_eq!(rows, expected, "one stored clip record per index: {video}");

        let clips = video["video_clips"].as_array().expect("video_clips");
        assert_eq!(clips.len(), CLIPS, "{video}");
        let ids: BTreeSet<&str> = clips.iter().filter_map(|c| c["uuid"].as_str()).collect();
        assert_eq!(ids.len(), CLIPS, "distinct clip records: {video}");
        let dir = self.db.dir.path().join(uuid);
        std::fs::create_dir_all(&dir).expect("download dir");
        for (i, clip) in clips.iter().enumerate() {
            let url = clip["clip_url"].as_str().expect("clip_url");
            let probe = self.download(url, &dir.join(format!("clip-{i}.mp4")));
            check_probe(&probe, FRAMES_PER_CLIP, false, &format!("{uuid} clip {i}"));
        }
        let url = video["video_url"].as_str().expect("video_url");
        // The stitch's object key carries its claim's token (a late stitch cannot overwrite it).
        let prefix = format!("{}/files/videos/{uuid}/video", self.public);
        assert!(
            url.starts_with(&prefix) && url.ends_with(".mp4"),
            "{url} is not under {prefix}"
        );
        let probe = self.download(url, &dir.join("video.mp4"));
        check_probe(&probe, FRAMES_PER_CLIP * CLIPS as u64, true, uuid);
    }

    /// Downloads one of the API's `/files/` URLs through its `302` and probes it.
    fn download(&self, url: &str, dest: &Path) -> Value {
        let path = url
            .strip_prefix(&self.public)
            .unwrap_or_else(|| panic!("{url} is not the API's"));
        assert!(path.starts_with("/files/"), "{url}");
        let (status, headers, _) = http(self.api_port, "GET", path, &[]).expect("API answers");
        assert_eq!(status, 302, "{url}");
        let (status, headers2, body) =
            get_url(header(&headers, "location").expect("Location"), &[]);
        assert_eq!(status, 200, "{url}");
        assert_eq!(
            header(&headers2, "content-type"),
            Some("video/mp4"),
            "{url}"
        );
        std::fs::write(dest, body).expect("write download");
        ffprobe(dest)
    }
}

fn ffprobe(path: &Path) -> Value {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-show_entries"])
        .arg("format=format_name,duration:stream=codec_type,codec_name,width,height,nb_frames,duration")
        .args(["-of", "json"])
        .arg(path)
        .output()
        .expect("run ffprobe");
    assert!(
        out.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("ffprobe json")
}

fn stream<'a>(probe: &'a Value, kind: &str) -> &'a Value {
    probe["streams"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["codec_type"] == kind))
        .unwrap_or_else(|| panic!("no {kind} stream: {probe}"))
}

fn seconds(value: &Value) -> f64 {
    value
        .as_str()
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("not a duration: {value}"))
}

/// An MP4 of `frames` 720p H.264 frames; with `audio`, an audio stream as long as the video
/// (within one frame), without, none (clips are rendered silent; the stitch mixes the music).
fn check_probe(probe: &Value, frames: u64, audio: bool, what: &str) {
    assert!(
        probe["format"]["format_name"]
            .as_str()
            .is_some_and(|f| f.contains("mp4")),
        "{what}: {probe}"
    );
    let video = stream(probe, "video");
    assert_eq!(
        (&video["codec_name"], &video["width"], &video["height"]),
        (&json!("h264"), &json!(1280), &json!(720)),
        "{what}: {probe}"
    );
    assert_eq!(
        video["nb_frames"],
        json!(frames.to_string()),
        "{what}: frames: {probe}"
    );
    let v = seconds(&video["duration"]);
    assert!(
        (v - frames as f64 / FPS).abs() <= 1.0 / FPS,
        "{what}: video stream lasts {v} s for {frames} frames: {probe}"
    );
    let has_audio = probe["streams"]
        .as_array()
        .is_some_and(|s| s.iter().any(|s| s["codec_type"] == "audio"));
    assert_eq!(has_audio, audio, "{what}: audio stream: {probe}");
    if audio {
        let a = seconds(&stream(probe, "audio")["duration"]);
        assert!(
            (v - a).abs() <= 1.0 / FPS,
            "{what}: audio {a} s against video {v} s: {probe}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Scenarios

/// (a) Three videos of six clips on three workers: all complete, right in every part.
#[test]
#[ignore = "scale-out suite: scripts/suites/50-scale.sh"]
fn a_three_videos_on_three_workers() {
    let Some(cluster) = Cluster::start(3) else {
        return;
    };
    let started = Instant::now();
    let uuids: Vec<String> = (0..3).map(|n| cluster.create_video(n)).collect();
    let videos = cluster.wait_complete(&uuids, WAIT_VIDEO);
    eprintln!("(a) 3 videos x {CLIPS} clips in {:?}", started.elapsed());
    for video in &videos {
        cluster.check_video(video);
    }
    // Every worker took part (each holds one slot, three videos were waiting).
    for (n, w) in cluster.workers.iter().enumerate() {
        let log = std::fs::read_to_string(&w.log).unwrap_or_default();
        assert!(
            log.contains("job claimed"),
            "worker {n} claimed nothing\n{}",
            cluster.logs()
        );
    }
}

/// (b) `kill -9` of a worker's process group mid-clip: its jobs run again elsewhere within
/// lease + sweep, the video completes and is right, and none of its ffmpegs survives.
#[test]
#[ignore = "scale-out suite: scripts/suites/50-scale.sh"]
fn b_kill_9_mid_clip() {
    let Some(mut cluster) = Cluster::start(3) else {
        return;
    };
    let uuid = cluster.create_video(0);
    let victim = cluster.worker_mid_clip();
    let pid = cluster.workers[victim].pid();
    let ffmpegs = ffmpegs_below(pid);
    assert!(!ffmpegs.is_empty());
    let held = cluster.running_jobs(&uuid);
    let killed = Instant::now();
    signal_group(pid, "KILL");
    let _ = cluster.workers[victim].child.wait();
    // Its ffmpegs die with it (same process group; the graph's own-group ffmpegs are swept
    // by the next start of a worker on the same data dir, so give that its chance too).
    let restarted = {
        let w = &cluster.workers[victim];
        spawn("worker", &w.env, &w.log)
    };
    cluster.workers[victim].child = restarted;
    let deadline = Instant::now() + Duration::from_secs(10);
    while ffmpegs.iter().any(|&p| alive(p)) {
        assert!(
            Instant::now() < deadline,
            "ffmpeg {ffmpegs:?} of the killed worker still running"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let rescued = cluster.wait_rescued(&held, killed);
    eprintln!(
        "(b) jobs of the killed worker rescued after {rescued:?} (lease + sweep = {RESCUE:?})"
    );
    let video = cluster.wait_complete(std::slice::from_ref(&uuid), WAIT_VIDEO);
    eprintln!("(b) video complete {:?} after the kill", killed.elapsed());
    cluster.check_video(&video[0]);
}

/// (c) SIGSTOP of a worker mid-clip past its lease, then SIGCONT: another worker takes its
/// jobs, the late worker's result is not recorded (it finds its lease lost) and the video is
/// right.
#[test]
#[ignore = "scale-out suite: scripts/suites/50-scale.sh"]
fn c_sigstop_past_the_lease() {
    let Some(cluster) = Cluster::start(3) else {
        return;
    };
    let uuid = cluster.create_video(1);
    let victim = cluster.worker_mid_clip();
    let pid = cluster.workers[victim].pid();
    let held = cluster.running_jobs(&uuid);
    assert!(
        !held.is_empty(),
        "a worker runs an ffmpeg, so some job runs"
    );
    let stopped = Instant::now();
    signal_group(pid, "STOP");
    let rescued = cluster.wait_rescued(&held, stopped);
    eprintln!("(c) jobs of the paused worker taken over after {rescued:?}");
    // The lease ran out (the jobs were rescued); let the new owner get going.
    std::thread::sleep(Duration::from_secs(1));
    signal_group(pid, "CONT");
    let video = cluster.wait_complete(std::slice::from_ref(&uuid), WAIT_VIDEO);
    cluster.check_video(&video[0]);
    // The late worker learned it lost the lease and recorded nothing: give it a moment to
    // log so (its heartbeat or its completion runs right after SIGCONT).
    let deadline = Instant::now() + Duration::from_secs(2 * LEASE_SECS);
    loop {
        let log = std::fs::read_to_string(&cluster.workers[victim].log)
            .unwrap_or_default()
            .to_ascii_lowercase();
        if log.contains("lease lost") || log.contains("fenced") {
            // The claim it held at the pause must not complete. The requeued job may be claimed
            // again by this same worker once it runs: a new claim with a new token, which may
            // complete. Each claim completes at most once, so the held claim completed iff
            // the job's completions reach its claims in this worker's log.
            for (id, _, _) in &held {
                let count = |what: &str| {
                    log.lines()
                        .filter(|l| l.contains(what) && l.contains(&format!("job={id} ")))
                        .count()
                };
                let (claims, completions) = (count("job claimed"), count("job complete"));
                // `held` is every job of the video running at the pause; only those this
                // worker claimed (the others were other workers') are in its log.
                assert!(
                    claims == 0 || completions < claims,
                    "the paused worker completed job {id} under the lease it had lost \
                     ({claims} claims, {completions} completions)\n{}",
                    cluster.logs()
                );
            }
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the paused worker never noticed its lost lease\n{}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // Each job it held ended done: by another worker, or by this one under a later claim.
    let states: Vec<(i64, String)> = cluster
        .rt
        .block_on(
            sqlx::query_as("SELECT id, state FROM jobs WHERE id = ANY($1) ORDER BY id")
                .bind(held.iter().map(|(id, _, _)| *id).collect::<Vec<_>>())
                .fetch_all(&cluster.pool),
        )
        .expect("read jobs");
    assert!(
        states.iter().all(|(_, s)| s == "done"),
        "{states:?}\n{}",
        cluster.logs()
    );
}

/// The `pg_ctlcluster` version and name of the running PostgreSQL cluster.
fn pg_cluster() -> (String, String) {
    let out = Command::new("pg_lsclusters")
        .arg("-h")
        .output()
        .expect("pg_lsclusters (PostgreSQL's Debian tools)");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() > 3 && f[3] == "online")
        .map(|f| (f[0].to_owned(), f[1].to_owned()))
        .expect("an online PostgreSQL cluster")
}

/// (d) PostgreSQL restarted while two videos render: both complete, right.
#[test]
#[ignore = "scale-out suite: scripts/suites/50-scale.sh"]
fn d_postgres_restart() {
    let Some(cluster) = Cluster::start(3) else {
        return;
    };
    let uuids = vec![cluster.create_video(2), cluster.create_video(3)];
    cluster.worker_mid_clip();
    // Wait for a clip to be recorded, so the restart lands between clips of a started video.
    std::thread::sleep(Duration::from_secs(3));
    let (version, name) = pg_cluster();
    let ctl = |action: &str| {
        let out = Command::new("pg_ctlcluster")
            .args(["--skip-systemctl-redirect", &version, &name, action])
            .output()
            .expect("pg_ctlcluster");
        assert!(
            out.status.success(),
            "pg_ctlcluster {action}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // `restart` by default (down for a moment); STILLREEL_SCALE_PG_DOWN_SECS=N keeps it down
    // N seconds between stop and start, so clips finish while it is away.
    let down: u64 = std::env::var("STILLREEL_SCALE_PG_DOWN_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let stopped = Instant::now();
    if down == 0 {
        ctl("restart");
    } else {
        ctl("stop");
        std::thread::sleep(Duration::from_secs(down));
        ctl("start");
    }
    eprintln!(
        "(d) PostgreSQL {version}/{name} restarted, away {:?}",
        stopped.elapsed()
    );
    let videos = cluster.wait_complete(&uuids, WAIT_VIDEO);
    for video in &videos {
        cluster.check_video(video);
    }
}

/// (e) The object store is killed with `-9` mid-run, stays away while the workers run on
/// against a dead endpoint, and comes back on the same data and address: the clips stored
/// before the kill are still there, and the videos complete, right.
#[test]
#[ignore = "scale-out suite: scripts/suites/50-scale.sh"]
fn e_object_store_outage() {
    let Some(mut cluster) = Cluster::start(3) else {
        return;
    };
    let uuids = vec![cluster.create_video(4), cluster.create_video(5)];
    cluster.worker_mid_clip();
    // Wait until some clip is stored, so the outage lands between a stored clip and the stitch.
    let started = Instant::now();
    let stored = loop {
        let keys = cluster.stored_clip_keys(&uuids);
        if !keys.is_empty() {
            break keys;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no clip stored within 60 s\n{}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    cluster.garage.kill();
    let killed = Instant::now();
    eprintln!(
        "(e) garage killed with -9 after {} clip(s) stored; workers run on against a dead endpoint",
        stored.len()
    );
    // Long enough for clips to finish and fail to go up (object_store retries, then the job
    // fails and is queued again); the jobs must survive it.
    std::thread::sleep(Duration::from_secs(8));
    // The workers met the outage: object_store logs each request it retries.
    let refused: usize = cluster
        .workers
        .iter()
        .map(|w| {
            std::fs::read_to_string(&w.log)
                .unwrap_or_default()
                .matches("Encountered transport error")
                .count()
        })
        .sum();
    assert!(
        refused > 0,
        "no worker sent a request to the dead store\n{}",
        cluster.logs()
    );
    cluster.garage.run();
    eprintln!("(e) {refused} request(s) to the dead store retried");
    eprintln!(
        "(e) garage back on port {} after {:?}",
        cluster.garage.port,
        killed.elapsed()
    );
    let bucket = cluster.garage.store();
    for key in &stored {
        let size = bucket
            .size(&format!("{PREFIX}/{key}"))
            .unwrap_or_else(|e| panic!("{key}: {e}"));
        assert!(
            size.is_some_and(|s| s > 0),
            "{key}, stored before the kill, is gone after the restart\n{}",
            cluster.garage.log()
        );
    }
    let videos = cluster.wait_complete(&uuids, WAIT_VIDEO);
    eprintln!("(e) videos complete {:?} after the kill", killed.elapsed());
    for video in &videos {
        cluster.check_video(video);
    }
}
