//! The server as `scripts/run.sh` starts it: in a folder of its own with no `STILLREEL_DATA_DIR`,
//! so the data folder is the relative default `./data` (and the samples `./samples`). ffmpeg
//! runs inside each job's own folder, so every path the server hands it must name the same file
//! from there: videos with uploaded music, their branded copies and a combine with music
//! complete, with the music in them.

mod common;
#[path = "../../stillreel-render/tests/common/mod.rs"]
mod media;

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use common::process::{free_port, http_body, request, spawn_in_group, wait_healthy};
use serde_json::{Value, json};

/// The binary started in `dir` with an empty environment but `PATH`, `RUST_LOG` and `env`.
fn bin_in(dir: &Path, env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stillreel"));
    cmd.current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("RUST_LOG", "info,sqlx=warn")
        .envs(env.iter().copied());
    cmd
}

/// The server's process group, ended however the test ends (a failed assertion too).
struct Serving(Child);

impl Drop for Serving {
    fn drop(&mut self) {
        // Not `kill_group`: a drop while a failed assertion unwinds must not panic again.
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{}", self.0.id())])
            .status();
        let _ = self.0.wait();
    }
}

/// Polls `get_video` until the video and its branded copy (when asked for) are final.
fn wait_final(port: u16, key: &str, uuid: &str, log: &Path) -> Value {
    let started = Instant::now();
    loop {
        let (status, video) = request(
            port,
            "GET",
            &format!("/api/v1/get_video?uuid={uuid}"),
            key,
            None,
        )
        .expect("server answers");
        assert_eq!(status, 200, "{video}");
        let done = |s: &Value| matches!(s.as_str(), Some("complete" | "error"));
        if done(&video["status"])
            && (video["branding"].is_null() || done(&video["branding"]["status"]))
        {
            return video;
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "video {uuid} not final: {video}\nlog:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The stored file behind a `/files/...` URL, in the data folder below `root`.
fn stored(root: &Path, url: &str) -> std::path::PathBuf {
    let (_, key) = url.split_once("/files/").expect("a /files/ URL");
    let path = root.join("data/media").join(key);
    assert!(path.is_file(), "{} is not in ./data", path.display());
    path
}

/// Duration of `path`, after checking it has a video and an audio stream whose sound is
/// music (a silent track measures about -91 dB).
fn with_music(path: &Path) -> f64 {
    let probe = media::probe(path);
    let video = media::stream(&probe, "video");
    assert_eq!(video["codec_name"], "h264", "{probe}");
    let audio = media::stream(&probe, "audio");
    assert_eq!(audio["codec_name"], "aac", "{probe}");
    let volume = media::mean_volume(path, 1.0, 2.0);
    assert!(
        volume > -40.0,
        "{}: mean volume {volume} dB",
        path.display()
    );
    media::num(&probe["format"]["duration"])
}

#[test]
fn a_server_on_the_relative_default_data_dir_renders_music_branding_and_combines() {
    let root = tempfile::tempdir().expect("temp dir");
    let root = root.path();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    std::os::unix::fs::symlink(
        samples.canonicalize().expect("samples"),
        root.join("samples"),
    )
    .expect("samples link");
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let log = root.join("serve.log");

    // The listen address is the one variable set: the default port may be taken.
    let out = bin_in(root, &[])
        .args(["accounts", "create", "local"])
        .output()
        .expect("accounts create");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let account: Value = serde_json::from_slice(&out.stdout).expect("account json");
    let key = account["api_key"].as_str().expect("api_key").to_owned();
    assert!(
        root.join("data/stillreel.db").is_file(),
        "the CLI used ./data"
    );

    let _server = Serving(spawn_in_group(
        bin_in(root, &[("STILLREEL_LISTEN", &listen)]).arg("serve"),
        &log,
    ));
    wait_healthy(port, "stillreel serve", &log);
    let base = format!("http://{listen}");

    let tone = media::tone(root, "theme.ogg", 4.0);
    let (status, _, body) = http_body(
        port,
        "POST",
        "/api/v1/upload_media",
        &[("authorization", &key), ("content-type", "audio/ogg")],
        &std::fs::read(&tone).expect("tone"),
    )
    .expect("upload");
    let upload: Value = serde_json::from_slice(&body).expect("upload json");
    assert_eq!(status, 200, "{upload}");
    assert_eq!(upload["media_type"], "audio/ogg", "{upload}");
    let music = upload["url"].as_str().expect("url");

    let create = json!({
        "image_inputs": [
            {"image_url": format!("{base}/samples/house-colonial.jpg"), "camera_motion": "push-in"},
            {"image_url": format!("{base}/samples/living-room.png")}
        ],
        "audio_url": music,
        "branding": {
            "outro": {"template": "outro-contact-card", "config": {
                "agent_name": {"value": "Ana Díaz"}, "phone": {"value": "+1 555 0100"}}},
            "speed_ramp": true
        }
    });
    let (status, created) =
        request(port, "POST", "/api/v1/create_video", &key, Some(&create)).expect("create");
    assert_eq!(status, 200, "{created}");
    let video = wait_final(port, &key, created["uuid"].as_str().expect("uuid"), &log);
    assert_eq!(video["status"], "complete", "{video}");
    assert_eq!(video["branding"]["status"], "complete", "{video}");
    let main = with_music(&stored(root, video["video_url"].as_str().expect("url")));
    assert!((main - 10.0).abs() <= 0.1, "main video {main} s");
    let branded = with_music(&stored(
        root,
        video["branding"]["video_url"].as_str().expect("url"),
    ));
    // The outro adds 3 s, the ramp takes some back.
    assert!(
        branded > main && branded < main + 3.0,
        "branded {branded} s"
    );

    // A combine fetches its music itself (the fetch, not the stored upload of a video).
    let clips: Vec<&str> = video["video_clips"]
        .as_array()
        .expect("clips")
        .iter()
        .map(|c| c["uuid"].as_str().expect("clip uuid"))
        .collect();
    let combine = json!({
        "video_clip_uuids": [clips[1], clips[0]],
        "orientation": "landscape", "resolution": "720p",
        "audio_url": music
    });
    let (status, combined) = request(
        port,
        "POST",
        "/api/v1/combine_video_clips",
        &key,
        Some(&combine),
    )
    .expect("combine");
    assert_eq!(status, 200, "{combined}");
    let combined = wait_final(port, &key, combined["uuid"].as_str().expect("uuid"), &log);
    assert_eq!(combined["status"], "complete", "{combined}");
    let seconds = with_music(&stored(root, combined["video_url"].as_str().expect("url")));
    assert!((seconds - 10.0).abs() <= 0.1, "combined video {seconds} s");
}
