//! Real ffmpeg renders through the pipeline, checked with ffprobe. Kept few and mostly 720p:
//! the CPU is shared.

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::procs::ffmpeg_running_in;
use common::{Route, TestServer, num, probe, stream};
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution};
use stillreel_render::effect::FixedEffect;
use stillreel_render::{
    AllowList, ClipRequest, CombineJob, EffectFilter, FetchConfig, Fetcher, JobFailure,
    LocalStorage, RenderConfig, RenderError, RenderObserver, Renderer, StoredClip, VideoJob,
};

struct Env {
    dir: tempfile::TempDir,
    server: TestServer,
    renderer: Renderer,
}

impl Env {
    async fn new(config: RenderConfig) -> Env {
        let dir = tempfile::tempdir().expect("temp dir");
        let media = dir.path().join("media");
        std::fs::create_dir_all(&media).expect("media dir");
        let mut routes = Vec::new();
        let body = |p: PathBuf, t: &'static str| Route::Body {
            content_type: t,
            body: Arc::new(std::fs::read(p).expect("read media")),
        };
        routes.push((
            "/wide.jpg",
            body(
                common::picture(&media, "wide.jpg", 2400, 1600),
                "image/jpeg",
            ),
        ));
        routes.push((
            "/tall.png",
            body(common::picture(&media, "tall.png", 600, 900), "image/png"),
        ));
        routes.push((
            "/small.jpg",
            body(common::picture(&media, "small.jpg", 640, 360), "image/jpeg"),
        ));
        routes.push((
            "/short.mp3",
            body(common::tone(&media, "short.mp3", 2.0), "audio/mpeg"),
        ));
        routes.push((
            "/long.ogg",
            body(common::tone(&media, "long.ogg", 20.0), "audio/ogg"),
        ));
        routes.push((
            "/big.jpg",
            Route::Stream {
                total: 41 * 1024 * 1024,
            },
        ));
        routes.push((
            "/page.jpg",
            Route::Body {
                content_type: "image/jpeg",
                body: Arc::new(b"<html></html>".to_vec()),
            },
        ));
        routes.push((
            "/playlist.png",
            Route::Body {
                content_type: "image/png",
                body: Arc::new(b"#EXTM3U\n#EXTINF:1,\nfile:///etc/passwd\n".to_vec()),
            },
        ));
        let rotated = common::picture(&media, "halves.jpg", 400, 200);
        // Left half red, right half blue, stored sideways: EXIF 6 says "turn clockwise".
        common::ffmpeg(&[
            "-f",
            "lavfi",
            "-i",
            "color=red:s=200x200",
            "-f",
            "lavfi",
            "-i",
            "color=blue:s=200x200",
            "-filter_complex",
            "[0:v][1:v]hstack",
            "-frames:v",
            "1",
            rotated.to_str().expect("utf-8"),
        ]);
        let jpeg = std::fs::read(&rotated).expect("jpeg");
        routes.push((
            "/sideways.jpg",
            Route::Body {
                content_type: "image/jpeg",
                body: Arc::new(exif6(&jpeg)),
            },
        ));
        let server = TestServer::start("127.0.0.1", routes).await;
        let fetch = FetchConfig {
            allow: AllowList::parse("127.0.0.1").expect("allow"),
            ..FetchConfig::default()
        };
        let storage = Arc::new(LocalStorage::new(dir.path().join("store"), "/files"));
        let renderer = Renderer::new(config, Fetcher::new(fetch, None), storage);
        Env {
            dir,
            server,
            renderer,
        }
    }

    fn job(
        &self,
        images: &[(&str, CameraMotion)],
        orientation: Orientation,
        resolution: Resolution,
        engine: Engine,
    ) -> VideoJob {
        VideoJob {
            pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
            branded_intro: false,
            branded_sound: None,
            key_prefix: format!("videos/{}", images.len()),
            clips: images
                .iter()
                .map(|(path, motion)| ClipRequest {
                    depth: None,
                    image_url: self.server.url(path),
                    camera_motion: *motion,
                    effect: None,
                })
                .collect(),
            orientation,
            resolution,
            engine,
            audio_url: None,
            transition: stillreel_core::Transition::Cut,
        }
    }

    fn renderer_config(&self) -> &RenderConfig {
        self.renderer.config()
    }

    fn stored(&self, key: &str) -> PathBuf {
        self.dir.path().join("store").join(key)
    }

    fn work(&self, name: &str) -> PathBuf {
        self.dir.path().join("work").join(name)
    }
}

fn exif6(jpeg: &[u8]) -> Vec<u8> {
    let tiff: Vec<u8> = [
        b"MM\x00\x2a\x00\x00\x00\x08".as_slice(),
        &[0, 1],
        &[0x01, 0x12, 0, 3, 0, 0, 0, 1],
        &[0, 6, 0, 0],
        &[0, 0, 0, 0],
    ]
    .concat();
    let len = (2 + 6 + tiff.len()) as u16;
    [
        &jpeg[..2],
        &[0xff, 0xe1],
        &len.to_be_bytes(),
        b"Exif\x00\x00",
        &tiff,
        &jpeg[2..],
    ]
    .concat()
}

#[derive(Default)]
struct Recorder {
    progress: Mutex<Vec<u8>>,
    clips: Mutex<Vec<StoredClip>>,
    existing: Vec<Option<String>>,
}

impl RenderObserver for Recorder {
    fn progress(&self, percent: u8) {
        self.progress.lock().expect("lock").push(percent);
    }
    fn clip_stored(&self, clip: &StoredClip) {
        self.clips.lock().expect("lock").push(clip.clone());
    }
    fn existing_clip(&self, index: usize) -> Option<String> {
        self.existing.get(index).cloned().flatten()
    }
}

/// Asserts the output format (docs/API-DESIGN.md#rendering) of a file and returns its duration.
fn assert_format(path: &Path, w: u64, h: u64) -> f64 {
    let p = probe(path);
    let v = stream(&p, "video");
    assert_eq!(v["codec_name"], "h264", "{}", path.display());
    assert_eq!(v["pix_fmt"], "yuv420p");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(w), Some(h))
    );
    assert_eq!(v["r_frame_rate"], "30/1");
    assert_eq!(v["avg_frame_rate"], "30/1");
    let a = stream(&p, "audio");
    assert_eq!(a["codec_name"], "aac");
    assert_eq!(a["sample_rate"], "48000");
    assert_eq!(a["channels"].as_u64(), Some(2));
    let video_seconds = num(&v["duration"]);
    let frames = num(&v["nb_read_frames"]);
    assert!((frames / 30.0 - video_seconds).abs() < 0.05);
    assert!(
        (num(&a["duration"]) - video_seconds).abs() < 0.1,
        "audio covers the video"
    );
    num(&p["format"]["duration"])
}

/// Asserts a clip's format: the video of [`assert_format`], exactly 150 frames, and no audio
/// (the stitch makes the audio once for the whole video). Returns the video's duration.
fn assert_clip_format(path: &Path, w: u64, h: u64) -> f64 {
    let p = probe(path);
    let v = stream(&p, "video");
    assert_eq!(v["codec_name"], "h264", "{}", path.display());
    assert_eq!(v["pix_fmt"], "yuv420p");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(w), Some(h))
    );
    assert_eq!(v["r_frame_rate"], "30/1");
    assert_eq!(num(&v["nb_read_frames"]), 150.0, "{}", path.display());
    let streams = p["streams"].as_array().expect("streams");
    assert!(
        streams.iter().all(|s| s["codec_type"] != "audio"),
        "a clip has no audio: {}",
        path.display()
    );
    num(&v["duration"])
}

/// Asserts a clip's stored thumbnail: a `w` × `h` JPEG showing the clip's middle frame (frame
/// 75) as ffmpeg's `scale=640:-2,format=yuvj420p` shows it: above 42 dB PSNR, and closer to
/// it than to frame 74 (which a real photo's push-in keeps within 38 dB of frame 75). A plain
/// clip's thumbnail is made from the drawn frame, before x264 (`thumbnail.rs`).
fn assert_thumbnail(env: &Env, clip_key: &str, w: u64, h: u64) {
    let clip = env.stored(clip_key);
    let still = env.stored(&stillreel_render::store::storage::still_key(clip_key));
    let p = probe(&still);
    let v = stream(&p, "video");
    assert_eq!(v["codec_name"], "mjpeg", "{}", still.display());
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(w), Some(h))
    );
    let psnr = |frame: u32| -> f64 {
        let graph =
            format!("[1:v]select=eq(n\\,{frame}),scale=640:-2,format=yuvj420p[b];[0:v][b]psnr");
        let out = std::process::Command::new("ffmpeg")
            .args(["-nostdin", "-i"])
            .arg(&still)
            .arg("-i")
            .arg(&clip)
            .args(["-filter_complex", &graph, "-f", "null", "-"])
            .output()
            .expect("run ffmpeg psnr");
        let log = String::from_utf8_lossy(&out.stderr);
        log.split("average:")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no PSNR for {}: {log}", still.display()))
    };
    let (middle, before) = (psnr(75), psnr(74));
    assert!(
        middle >= 42.0 && middle > before,
        "{}: {middle} dB against frame 75, {before} dB against frame 74",
        still.display()
    );
}

fn assert_near(actual: f64, want: f64, what: &str) {
    assert!(
        (actual - want).abs() <= 0.1,
        "{what}: {actual} s, want {want} ± 0.1"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn video_720p_landscape_clips_stitch_by_stream_copy() {
    let env = Env::new(RenderConfig::default()).await;
    let job = env.job(
        &[
            ("/wide.jpg", CameraMotion::PushIn),
            ("/tall.png", CameraMotion::OrbitLeft),
            ("/small.jpg", CameraMotion::Auto),
        ],
        Orientation::Landscape,
        Resolution::P720,
        Engine::V25,
    );
    let rec = Recorder::default();
    let video = env
        .renderer
        .render_video(&job, &env.work("a"), &rec)
        .await
        .expect("render");
    assert_eq!(video.url_path, "/files/videos/3/video.mp4");
    assert_near(video.seconds, 15.0, "planned");
    let main = env.stored(&video.key);
    assert_near(assert_format(&main, 1280, 720), 15.0, "video");

    // Clips: 5 s each, announced as they were stored, in input order in the result.
    assert_eq!(
        video.clips.iter().map(|c| c.index).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    assert_eq!(rec.clips.lock().expect("lock").len(), 3);
    let mut parts = Vec::new();
    for clip in &video.clips {
        let path = env.stored(&clip.key);
        assert_near(assert_clip_format(&path, 1280, 720), 5.0, &clip.key);
        assert_thumbnail(&env, &clip.key, 640, 360);
        parts.push(path);
    }
    assert_eq!(
        video.clips[1].motion,
        Some(stillreel_camera::geometry::clip_plan::Motion::OrbitLeft)
    );
    // Stream copy: the video's packets are the clips' packets, byte for byte, in order.
    common::assert_stream_copy(&main, &parts);

    // The clip check reads the facts from the MP4 boxes: the same facts ffprobe gives, for
    // the clips and for the video (which has a sound track); a truncated clip is not read
    // there (ffprobe then counts fewer frames, and the check refuses it).
    let ffprobe = Path::new("ffprobe");
    let step = stillreel_render::ffmpeg::runner::Step::Clip(0);
    for file in parts.iter().chain([&main]) {
        let data = std::fs::read(file).expect("read");
        let ours =
            stillreel_render::media::probe::mp4::clip_facts(&data).expect("facts from the boxes");
        let theirs =
            stillreel_render::media::probe::run_ffprobe(ffprobe, file, step).expect("ffprobe");
        assert_eq!(ours, theirs, "{}", file.display());
    }
    let data = std::fs::read(&parts[0]).expect("read");
    let cut = env.work("cut").join("truncated.mp4");
    std::fs::create_dir_all(cut.parent().expect("dir")).expect("dir");
    std::fs::write(&cut, &data[..data.len() / 2]).expect("write");
    assert_eq!(
        stillreel_render::media::probe::mp4::clip_facts(&data[..data.len() / 2]),
        None
    );
    let plan = stillreel_camera::geometry::clip_plan::ClipPlan::new(
        Orientation::Landscape,
        Resolution::P720,
        Engine::V25,
        stillreel_camera::geometry::clip_plan::Motion::PushIn,
    );
    let refused = stillreel_render::media::probe::probe_and_check(ffprobe, &cut, &plan, step);
    assert!(
        matches!(refused, Err(RenderError::Rejected { .. })),
        "{refused:?}"
    );

    // Progress: from low to 100, never decreasing.
    let progress = rec.progress.lock().expect("lock").clone();
    assert!(progress.windows(2).all(|w| w[0] < w[1]), "{progress:?}");
    assert_eq!(progress.last(), Some(&100));
    assert!(progress.len() > 5, "several steps: {progress:?}");

    // Combine the stored clips: reordered and repeated, with no re-encode.
    let keys = vec![
        video.clips[2].key.clone(),
        video.clips[0].key.clone(),
        video.clips[2].key.clone(),
    ];
    let combine = CombineJob {
        key_prefix: "combined/1".to_owned(),
        clip_keys: keys.clone(),
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        audio_url: None,
        transition: stillreel_core::Transition::Cut,
    };
    let started = std::time::Instant::now();
    let combined = env
        .renderer
        .combine(&combine, &env.work("c"), &Recorder::default())
        .await
        .expect("combine");
    let took = started.elapsed();
    let path = env.stored(&combined.key);
    assert_near(assert_format(&path, 1280, 720), 15.0, "combined");
    let parts: Vec<PathBuf> = keys.iter().map(|k| env.stored(k)).collect();
    common::assert_stream_copy(&path, &parts);
    assert!(
        took < Duration::from_secs(10),
        "combine is a copy: {took:?}"
    );

    // Resume: an attempt that finds clip 0 and 1 stored renders only clip 2.
    let rec = Recorder {
        existing: vec![
            Some(video.clips[0].key.clone()),
            Some(video.clips[1].key.clone()),
        ],
        ..Recorder::default()
    };
    let again = env
        .renderer
        .render_video(&job, &env.work("b"), &rec)
        .await
        .expect("resume");
    assert_eq!(
        rec.clips
            .lock()
            .expect("lock")
            .iter()
            .map(|c| c.index)
            .collect::<Vec<_>>(),
        vec![2]
    );
    assert_eq!(again.clips.len(), 3);
    assert_near(
        assert_format(&env.stored(&again.key), 1280, 720),
        15.0,
        "resumed video",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sizes_for_each_orientation_and_resolution() {
    let env = Env::new(RenderConfig::default()).await;
    for (orientation, resolution, w, h) in [
        (Orientation::Portrait, Resolution::P720, 720, 1280),
        (Orientation::Landscape, Resolution::P1080, 1920, 1080),
        (Orientation::Portrait, Resolution::P1080, 1080, 1920),
    ] {
        let mut job = env.job(
            &[("/small.jpg", CameraMotion::PushOut)],
            orientation,
            resolution,
            Engine::V24,
        );
        job.key_prefix = format!("videos/{w}x{h}");
        let video = env
            .renderer
            .render_video(&job, &env.work(&format!("{w}")), &Recorder::default())
            .await
            .expect("render");
        assert_near(assert_format(&env.stored(&video.key), w, h), 5.0, "video");
        assert_near(
            assert_clip_format(&env.stored(&video.clips[0].key), w, h),
            5.0,
            "clip",
        );
        let still_height = if w > h { 360 } else { 1138 };
        assert_thumbnail(&env, &video.clips[0].key, 640, still_height);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn motion_moves_v25_eases_and_exif_is_honoured() {
    let env = Env::new(RenderConfig::default()).await;
    let mut job = env.job(
        &[
            ("/wide.jpg", CameraMotion::PushIn),
            ("/wide.jpg", CameraMotion::PushIn),
            ("/sideways.jpg", CameraMotion::PushIn),
        ],
        Orientation::Portrait,
        Resolution::P720,
        Engine::V24,
    );
    let v24 = env
        .renderer
        .render_video(&job, &env.work("v24"), &Recorder::default())
        .await
        .expect("v24");
    job.engine = Engine::V25;
    job.key_prefix = "videos/v25".to_owned();
    job.clips.truncate(1);
    let v25 = env
        .renderer
        .render_video(&job, &env.work("v25"), &Recorder::default())
        .await
        .expect("v25");
    let clip24 = env.stored(&v24.clips[0].key);
    let clip25 = env.stored(&v25.clips[0].key);
    let f = |p: &Path, n| common::frame_gray(p, n, "36:64");
    // The picture really moves between the first and last frame.
    assert!(common::mean_abs_diff(&f(&clip24, 0), &f(&clip24, 149)) > 2.0);
    assert!(common::mean_abs_diff(&f(&clip25, 0), &f(&clip25, 149)) > 2.0);
    // Same start and end, but v25 eases in: after 20 frames it has moved far less than v24.
    let early24 = common::mean_abs_diff(&f(&clip24, 0), &f(&clip24, 20));
    let early25 = common::mean_abs_diff(&f(&clip25, 0), &f(&clip25, 20));
    assert!(early25 < early24 * 0.5, "v25 {early25} vs v24 {early24}");
    assert!(
        common::mean_abs_diff(&f(&clip24, 149), &f(&clip25, 149)) < 3.0,
        "same end frame"
    );

    // EXIF 6: stored red|blue side by side, shown upright as red above blue.
    let sideways = env.stored(&v24.clips[2].key);
    let rgb = common::frame_rgb(&sideways, 0, "2:2");
    let (top, bottom) = (&rgb[0..3], &rgb[6..9]);
    assert!(top[0] > 180 && top[2] < 80, "top is red: {top:?}");
    assert!(
        bottom[2] > 180 && bottom[0] < 80,
        "bottom is blue: {bottom:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn music_is_looped_or_trimmed_normalized_and_faded() {
    let env = Env::new(RenderConfig::default()).await;
    let mut job = env.job(
        &[
            ("/small.jpg", CameraMotion::PushIn),
            ("/small.jpg", CameraMotion::PushOut),
        ],
        Orientation::Landscape,
        Resolution::P720,
        Engine::V24,
    );
    // 2 s of music under 10 s of video: looped.
    job.audio_url = Some(env.server.url("/short.mp3"));
    let looped = env
        .renderer
        .render_video(&job, &env.work("loop"), &Recorder::default())
        .await
        .expect("looped");
    let path = env.stored(&looped.key);
    assert_near(assert_format(&path, 1280, 720), 10.0, "looped");
    let middle = common::mean_volume(&path, 6.5, 1.0);
    let last = common::mean_volume(&path, 9.5, 0.5);
    assert!(
        middle > -30.0,
        "music plays after the loop point: {middle} dB"
    );
    assert!(last < middle - 6.0, "fades out: {last} dB vs {middle} dB");
    // Loudness normalization lifts the quiet tone (-21 dB mean from ffmpeg's sine) toward -16 LUFS.
    assert!(middle > -21.0, "normalized: {middle} dB");

    // 20 s of music under 5 s: trimmed, still fades.
    job.clips.truncate(1);
    job.key_prefix = "videos/trim".to_owned();
    job.audio_url = Some(env.server.url("/long.ogg"));
    let trimmed = env
        .renderer
        .render_video(&job, &env.work("trim"), &Recorder::default())
        .await
        .expect("trimmed");
    let path = env.stored(&trimmed.key);
    assert_near(assert_format(&path, 1280, 720), 5.0, "trimmed");
    assert!(common::mean_volume(&path, 4.6, 0.4) < common::mean_volume(&path, 2.0, 1.0) - 6.0);
}

fn failure_code(
    result: Result<stillreel_render::StoredVideo, JobFailure>,
) -> (String, Option<String>, bool) {
    let e = result.expect_err("must fail");
    (
        e.code().to_owned(),
        e.field().map(str::to_owned),
        e.is_transient(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_paths_map_to_codes() {
    let env = Env::new(RenderConfig::default()).await;
    let cases = [
        ("/big.jpg", "media_too_large"),
        ("/page.jpg", "media_unsupported"),
        ("/playlist.png", "media_unsupported"),
        ("/missing.jpg", "media_unreachable"),
    ];
    for (i, (path, code)) in cases.iter().enumerate() {
        let mut job = env.job(
            &[
                ("/small.jpg", CameraMotion::PushIn),
                (path, CameraMotion::PushIn),
            ],
            Orientation::Landscape,
            Resolution::P720,
            Engine::V24,
        );
        job.key_prefix = format!("videos/err{i}");
        let got = failure_code(
            env.renderer
                .render_video(&job, &env.work(&format!("e{i}")), &Recorder::default())
                .await,
        );
        assert_eq!(
            got,
            (
                (*code).to_owned(),
                Some("image_inputs[1].image_url".to_owned()),
                false
            ),
            "{path}"
        );
    }
    // Unreachable host: nothing listens there (allowed address); transient.
    let mut job = env.job(
        &[("/small.jpg", CameraMotion::PushIn)],
        Orientation::Landscape,
        Resolution::P720,
        Engine::V24,
    );
    job.clips[0].image_url = "http://127.0.0.1:9/x.jpg".to_owned();
    let got = failure_code(
        env.renderer
            .render_video(&job, &env.work("u"), &Recorder::default())
            .await,
    );
    assert_eq!(
        got,
        (
            "media_unreachable".to_owned(),
            Some("image_inputs[0].image_url".to_owned()),
            true
        )
    );
    // Music that is not audio.
    let mut job = env.job(
        &[("/small.jpg", CameraMotion::PushIn)],
        Orientation::Landscape,
        Resolution::P720,
        Engine::V24,
    );
    job.audio_url = Some(env.server.url("/wide.jpg"));
    let got = failure_code(
        env.renderer
            .render_video(&job, &env.work("m"), &Recorder::default())
            .await,
    );
    assert_eq!(
        got,
        (
            "media_unsupported".to_owned(),
            Some("audio_url".to_owned()),
            false
        )
    );

    // ffmpeg itself fails (an effect names a filter that does not exist): render_failed, with
    // the step and ffmpeg's own words kept for the log.
    let mut job = env.job(
        &[("/small.jpg", CameraMotion::PushIn)],
        Orientation::Landscape,
        Resolution::P720,
        Engine::V24,
    );
    job.clips[0].effect = Some(Arc::new(FixedEffect(EffectFilter {
        graph: "[mv]nosuchfilter[fx]".to_owned(),
        inputs: vec![],
        masks: None,
    })));
    let e = env
        .renderer
        .render_video(&job, &env.work("f"), &Recorder::default())
        .await
        .expect_err("ffmpeg fails");
    assert_eq!(
        (e.code(), e.field(), e.is_transient()),
        ("render_failed", None, false)
    );
    match e {
        JobFailure::Render(RenderError::Failed {
            step, stderr_tail, ..
        }) => {
            assert_eq!(step, stillreel_render::Step::Clip(0));
            assert!(stderr_tail.contains("nosuchfilter"), "{stderr_tail}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn effect_hook_and_time_limit() {
    // A working effect: it draws a white box over the moving picture.
    let env = Env::new(RenderConfig {
        step_time_limit: Duration::from_millis(300),
        ..RenderConfig::default()
    })
    .await;
    let mut job = env.job(
        &[("/wide.jpg", CameraMotion::PushIn)],
        Orientation::Landscape,
        Resolution::P720,
        Engine::V25,
    );
    let e = env
        .renderer
        .render_video(&job, &env.work("t"), &Recorder::default())
        .await
        .expect_err("killed");
    assert!(
        matches!(e, JobFailure::Render(RenderError::TimedOut { .. })),
        "{e:?}"
    );
    assert_eq!(e.code(), "render_failed");

    let env = Env::new(RenderConfig::default()).await;
    job.clips[0].image_url = env.server.url("/wide.jpg");
    job.clips[0].effect = Some(Arc::new(FixedEffect(EffectFilter {
        graph: "[mv]drawbox=x=0:y=0:w=200:h=200:color=white:t=fill[fx]".to_owned(),
        inputs: vec![],
        masks: None,
    })));
    let video = env
        .renderer
        .render_video(&job, &env.work("fx"), &Recorder::default())
        .await
        .expect("effect");
    let clip = env.stored(&video.clips[0].key);
    assert_near(assert_clip_format(&clip, 1280, 720), 5.0, "effect clip");
    let rgb = common::frame_rgb(&clip, 75, "64:36");
    assert!(
        rgb[..3].iter().all(|&c| c > 230),
        "white box at the top left: {:?}",
        &rgb[..3]
    );
    // The thumbnail of a clip with an effect is split off ffmpeg's graph: it shows the box.
    assert_thumbnail(&env, &video.clips[0].key, 640, 360);
    let still = env.stored(&stillreel_render::store::storage::still_key(
        &video.clips[0].key,
    ));
    let rgb = common::frame_rgb(&still, 0, "64:36");
    assert!(rgb[..3].iter().all(|&c| c > 230), "{:?}", &rgb[..3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_render_kills_its_ffmpeg() {
    // What the worker does when a job's lease is lost or the server stops: it drops the render
    // future. ffmpeg runs on blocking threads, so only the cancel flag stops it.
    let env = Env::new(RenderConfig::default()).await;
    let job = env.job(
        &[
            ("/wide.jpg", CameraMotion::PushIn),
            ("/wide.jpg", CameraMotion::PushOut),
            ("/wide.jpg", CameraMotion::OrbitLeft),
        ],
        Orientation::Landscape,
        Resolution::P1080,
        Engine::V25,
    );
    let work = env.work("dropped");
    let observer = Recorder::default();
    let seen = tokio::select! {
        result = env.renderer.render_video(&job, &work, &observer) => {
            panic!("the render ended before ffmpeg was seen: {result:?}")
        }
        pids = async {
            loop {
                let pids = ffmpeg_running_in(&work);
                if !pids.is_empty() {
                    return pids;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        } => pids,
    };
    // The render future is dropped here.
    assert!(!seen.is_empty());
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    while !ffmpeg_running_in(&work).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "ffmpeg still running 3 s after the render was dropped: {:?}",
            ffmpeg_running_in(&work)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // No run starts after the drop either (the other clips were refused, not started).
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(ffmpeg_running_in(&work).is_empty());
}

/// An ffmpeg that records its peak resident memory (KiB) in `peak.txt` next to itself.
fn measuring_ffmpeg(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("ffmpeg-measured");
    let peak = dir.join("peak.txt");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nexec /usr/bin/time -a -o '{}' -f '%M' ffmpeg \"$@\"\n",
            peak.display()
        ),
    )
    .expect("write script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    script
}

fn peak_kib(dir: &Path) -> u64 {
    std::fs::read_to_string(dir.join("peak.txt"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse::<u64>().ok())
        .max()
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::print_stdout,
    reason = "the measured peak is a figure docs/SECURITY.md cites"
)]
async fn ffmpeg_runs_under_a_memory_limit_that_a_50_megapixel_photo_fits() {
    let tools = tempfile::tempdir().expect("temp dir");
    // Just under the pixel limit: 8640 × 5760 = 49.8 megapixels.
    let photo = tools.path().join("max.jpg");
    common::ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=8640x5760",
        "-frames:v",
        "1",
        photo.to_str().expect("utf-8"),
    ]);
    let ffmpeg = measuring_ffmpeg(tools.path());
    let limit = stillreel_render::DEFAULT_FFMPEG_MEMORY_LIMIT;
    let env = Env::new(RenderConfig {
        ffmpeg: ffmpeg.clone(),
        ..RenderConfig::default()
    })
    .await;
    assert_eq!(env.renderer_config().ffmpeg_memory_limit, Some(limit));
    let server = TestServer::start(
        "127.0.0.1",
        vec![(
            "/max.jpg",
            Route::Body {
                content_type: "image/jpeg",
                body: Arc::new(std::fs::read(&photo).expect("photo")),
            },
        )],
    )
    .await;
    let mut job = env.job(
        &[("/max.jpg", CameraMotion::PushIn)],
        Orientation::Landscape,
        Resolution::P1080,
        Engine::V25,
    );
    job.clips[0].image_url = server.url("/max.jpg");
    let video = env
        .renderer
        .render_video(&job, &env.work("max"), &Recorder::default())
        .await
        .expect("the largest accepted photo renders under the default limit");
    assert_format(&env.stored(&video.key), 1920, 1080);
    let peak = peak_kib(tools.path()) * 1024;
    println!(
        "ffmpeg peak resident memory for a 49.8 MP photo: {:.0} MiB (limit {} MiB)",
        peak as f64 / 1048576.0,
        limit / 1048576
    );
    assert!(peak > 0 && peak < limit, "peak {peak} bytes");

    // The limit bites: at 64 MiB the same render cannot allocate its frames.
    let env = Env::new(RenderConfig {
        ffmpeg_memory_limit: Some(64 * 1024 * 1024),
        ..RenderConfig::default()
    })
    .await;
    job.key_prefix = "videos/limited".to_owned();
    let e = env
        .renderer
        .render_video(&job, &env.work("limited"), &Recorder::default())
        .await
        .expect_err("64 MiB is too little");
    assert!(
        matches!(e, JobFailure::Render(RenderError::Failed { .. })),
        "{e:?}"
    );
    assert_eq!(e.code(), "render_failed");
}
