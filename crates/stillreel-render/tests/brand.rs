//! The branded render on real ffmpeg output: intro drawn over the first 3 s only, a 3 s outro
//! card appended, the speed ramp shortening the video with sound and picture ending together
//! (± 50 ms), and `speed_ramp` reported only when it took effect.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{Route, TestServer, num, probe, stream};
use stillreel_camera::geometry::clip_plan::Pace;
use stillreel_core::catalog::builtin_templates;
use stillreel_core::types::{TemplateSlot, TemplateValue};
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution};
use stillreel_render::NoObserver;
use stillreel_render::{
    AheadSound, AllowList, BrandJob, BrandMusic, BrandSlot, ClipRequest, FetchConfig, Fetcher,
    JobFailure, LocalStorage, RenderConfig, Renderer, VideoJob,
};

fn text(v: &str) -> TemplateValue {
    TemplateValue::Text { value: v.into() }
}

fn slot(id: &str, values: Vec<(&str, TemplateValue)>) -> Option<BrandSlot> {
    let slot = TemplateSlot {
        template: id.into(),
        config: values
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect::<BTreeMap<_, _>>(),
    };
    BrandSlot::resolve(&slot, builtin_templates())
}

/// Duration of the first stream of a kind, from its packets.
fn duration(p: &serde_json::Value, kind: &str) -> f64 {
    num(&stream(p, kind)["duration"])
}

fn frames(p: &serde_json::Value) -> f64 {
    num(&stream(p, "video")["nb_read_frames"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn branded_video_has_intro_outro_and_ramp() {
    let dir = tempfile::tempdir().expect("temp dir");
    let media = dir.path().join("media");
    std::fs::create_dir_all(&media).expect("media");
    let body = |p: PathBuf, t: &'static str| Route::Body {
        content_type: t,
        body: Arc::new(std::fs::read(p).expect("read")),
    };
    let server = TestServer::start(
        "127.0.0.1",
        vec![
            (
                "/a.jpg",
                body(common::picture(&media, "a.jpg", 1280, 720), "image/jpeg"),
            ),
            (
                "/face.png",
                body(common::picture(&media, "face.png", 300, 400), "image/png"),
            ),
            (
                "/music.ogg",
                body(common::tone(&media, "music.ogg", 30.0), "audio/ogg"),
            ),
        ],
    )
    .await;
    let fetch = FetchConfig {
        allow: AllowList::parse("127.0.0.1").expect("allow"),
        ..FetchConfig::default()
    };
    let store = dir.path().join("store");
    let renderer = Renderer::new(
        RenderConfig::default(),
        Fetcher::new(fetch, None),
        Arc::new(LocalStorage::new(&store, "/files")),
    );
    // Two clips with music (so the ramp has sound to keep in step).
    // Paced for the ramp: the camera keeps moving through the clips' ends.
    let job = VideoJob {
        pace: Pace::Through,
        branded_intro: false,
        branded_sound: None,
        key_prefix: "videos/b".into(),
        clips: [CameraMotion::PushIn, CameraMotion::PushOut]
            .into_iter()
            .map(|m| ClipRequest {
                depth: None,
                image_url: server.url("/a.jpg"),
                camera_motion: m,
                effect: None,
            })
            .collect(),
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        engine: Engine::V25,
        audio_url: Some(server.url("/music.ogg")),
        transition: stillreel_core::Transition::Cut,
    };
    let work = dir.path().join("work");
    let main = renderer
        .render_video(&job, &work.join("main"), &NoObserver)
        .await
        .expect("main video");
    let main_path = store.join(&main.key);

    let intro = slot(
        "intro-title-card",
        vec![
            ("headline", text("Just Listed\nOpen House Sunday")),
            ("price", text("$1,250,000")),
        ],
    );
    let outro = slot(
        "outro-contact-card",
        vec![
            ("agent_name", text("Zoë Ångström-Müller")),
            ("phone", text("+1 555 010 2030")),
            (
                "headshot",
                TemplateValue::Image {
                    url: server.url("/face.png"),
                },
            ),
        ],
    );
    let mut brand = BrandJob {
        key_prefix: "videos/b".into(),
        main_key: main.key.clone(),
        clip_frames: BrandJob::standard_clips(2),
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        intro,
        outro,
        speed_ramp: true,
        clip_pace: Pace::Through,
        music: Some(BrandMusic::Url(server.url("/music.ogg"))),
        sound_key: None,
    };
    let ramped = renderer
        .render_branded(&brand, &work.join("b1"), &NoObserver)
        .await
        .expect("branded");
    assert!(ramped.speed_ramp, "two clips: the ramp takes effect");
    let ramped_path = store.join(&ramped.video.key);
    let p = probe(&ramped_path);
    let v = stream(&p, "video");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(1280), Some(720))
    );
    assert_eq!(v["pix_fmt"], "yuv420p");
    assert_eq!(v["r_frame_rate"], "30/1");
    let a = stream(&p, "audio");
    assert_eq!(
        (a["sample_rate"].as_str(), a["channels"].as_u64()),
        (Some("48000"), Some(2))
    );
    // 300 frames, one cut ramped (36 frames saved), plus the 90-frame outro.
    assert_eq!(frames(&p), 300.0 - 36.0 + 90.0);
    let (vd, ad) = (duration(&p, "video"), duration(&p, "audio"));
    assert!((vd - ad).abs() <= 0.05, "A/V lengths {vd} vs {ad}");
    assert!(vd < 10.0 + 3.0, "shorter than main + outro: {vd}");

    // Asked for over eased clips (still at their ends), the ramp would not show: it is not
    // applied, the video is not shortened, and `speed_ramp` says so.
    brand.clip_pace = Pace::Engine;
    brand.key_prefix = "videos/b-eased".into();
    let eased = renderer
        .render_branded(&brand, &work.join("b0"), &NoObserver)
        .await
        .expect("branded over eased clips");
    assert!(!eased.speed_ramp, "eased clips: the ramp is not applied");
    assert_eq!(frames(&probe(&store.join(&eased.video.key))), 390.0);
    brand.clip_pace = Pace::Through;

    // Without the ramp: 300 + 90 frames; the ramp made the video shorter.
    brand.speed_ramp = false;
    brand.key_prefix = "videos/b-plain".into();
    let started = std::time::Instant::now();
    let plain = renderer
        .render_branded(&brand, &work.join("b2"), &NoObserver)
        .await
        .expect("branded without ramp");
    eprintln!("branded by copy: {:?}", started.elapsed());
    assert!(!plain.speed_ramp);
    let plain_path = store.join(&plain.video.key);
    let q = probe(&plain_path);
    assert_eq!(frames(&q), 390.0);
    assert!(duration(&q, "video") > vd + 1.0);
    assert!((duration(&q, "video") - duration(&q, "audio")).abs() <= 0.05);
    // Only the intro's span (to the keyframe at 4 s) was encoded: from frame 120 to the end of
    // the main video every packet is the main video's own (keyframes aside, whose parameter
    // sets the concat demuxer may repeat), and the pictures are identical.
    let ours = common::packet_hashes(&plain_path);
    let theirs = common::packet_hashes(&main_path);
    let keys = common::keyframes(&main_path);
    assert_eq!(theirs.len(), 300);
    let copied = (120..300).filter(|&i| !keys[i]).count();
    let same = (120..300)
        .filter(|&i| !keys[i] && ours[i] == theirs[i])
        .count();
    assert!(
        copied > 150 && same == copied,
        "{same} of {copied} packets copied"
    );
    let plain_diff = |n: u32| {
        common::mean_abs_diff(
            &common::frame_gray(&plain_path, n, "64:36"),
            &common::frame_gray(&main_path, n, "64:36"),
        )
    };
    assert!(plain_diff(45) > 8.0, "intro drawn: {}", plain_diff(45));
    assert_eq!(plain_diff(150), 0.0, "copied frame");
    // The music runs through the outro (10 s to 13 s) and fades out with it.
    let outro_start = common::mean_volume(&plain_path, 10.0, 1.0);
    let outro_end = common::mean_volume(&plain_path, 12.6, 0.4);
    assert!(
        outro_start > -30.0,
        "music under the outro: {outro_start} dB"
    );
    assert!(
        outro_end > -90.0 && outro_start - outro_end > 12.0,
        "faded: {outro_start} dB then {outro_end} dB"
    );

    // The intro's frames differ from the main video's during the first 3 s (the ramp does not
    // touch the first clip before its last 36 frames), and not after the fade out.
    let diff = |n: u32| {
        common::mean_abs_diff(
            &common::frame_gray(&ramped_path, n, "64:36"),
            &common::frame_gray(&main_path, n, "64:36"),
        )
    };
    assert!(diff(45) > 8.0, "intro drawn at 1.5 s: {}", diff(45));
    assert!(diff(100) < 2.0, "no intro after 3 s: {}", diff(100));

    // The outro: its 90 frames show the card (its dark blue background at the top left), the
    // frame before it does not.
    let card = |path: &Path, n: u32| {
        let rgb = common::frame_rgb(path, n, "64:36");
        (i32::from(rgb[0]), i32::from(rgb[1]), i32::from(rgb[2]))
    };
    let navy = (0x14, 0x21, 0x3d);
    let close = |c: (i32, i32, i32)| {
        (c.0 - navy.0).abs() + (c.1 - navy.1).abs() + (c.2 - navy.2).abs() < 24
    };
    for n in [264 + 20, 264 + 60, 264 + 89] {
        assert!(
            close(card(&ramped_path, n)),
            "outro frame {n}: {:?}",
            card(&ramped_path, n)
        );
    }
    assert!(
        !close(card(&ramped_path, 263)),
        "last main frame is not the card"
    );
    // The music plays under the ramped video and through the outro (8.8 s to 11.8 s), fading
    // out with it.
    assert!(common::mean_volume(&ramped_path, 2.0, 2.0) > -40.0);
    let (start, end) = (
        common::mean_volume(&ramped_path, 8.8, 1.0),
        common::mean_volume(&ramped_path, 11.4, 0.4),
    );
    assert!(
        start > -30.0 && start - end > 12.0,
        "outro {start} dB then {end} dB"
    );

    // Without music the branded video is silent, outro included.
    brand.music = None;
    brand.key_prefix = "videos/b-silent".into();
    let silent = renderer
        .render_branded(&brand, &work.join("b3"), &NoObserver)
        .await
        .expect("branded without music");
    let silent_path = store.join(&silent.video.key);
    assert!(common::mean_volume(&silent_path, 0.0, 13.0) < -80.0);
    let s = probe(&silent_path);
    let (sv, sa) = (duration(&s, "video"), duration(&s, "audio"));
    assert!((sv - sa).abs() <= 0.05, "silent A/V lengths {sv} vs {sa}");

    // A video created to be branded with an intro and without the ramp: its first clip is keyed
    // where the intro ends (3 s), so the branded copy encodes the intro's 90 frames only and
    // copies the rest from there. Its stitch makes the branded sound ahead.
    brand.clip_pace = Pace::Engine;
    let keyed = renderer
        .render_video(
            &VideoJob {
                key_prefix: "videos/k".into(),
                pace: Pace::Engine,
                branded_intro: true,
                branded_sound: Some(AheadSound {
                    sound: brand.sound(),
                    key: "private/k/branded-sound.m4a".into(),
                }),
                ..job.clone()
            },
            &work.join("keyed"),
            &NoObserver,
        )
        .await
        .expect("main video keyed for its intro");
    let keyed_path = store.join(&keyed.key);
    let key_positions = |path: &Path| -> Vec<usize> {
        common::keyframes(path)
            .iter()
            .enumerate()
            .filter_map(|(i, &k)| k.then_some(i))
            .collect()
    };
    assert_eq!(key_positions(&store.join(&keyed.clips[0].key)), [0, 60, 90]);
    assert_eq!(
        key_positions(&store.join(&keyed.clips[1].key)),
        [0, 60, 120],
        "only the first clip carries the intro's keyframe"
    );
    let ahead = store.join("private/k/branded-sound.m4a");
    let a = probe(&ahead);
    assert!(
        (duration(&a, "audio") - 13.0).abs() <= 0.05,
        "the branded sound made ahead is the branded length"
    );
    brand.main_key = keyed.key.clone();
    // The music's URL now answers 404: the branded render takes the sound made ahead and
    // fetches no music.
    brand.music = Some(BrandMusic::Url(server.url("/gone.ogg")));
    brand.sound_key = Some("private/k/branded-sound.m4a".into());
    brand.key_prefix = "videos/k-branded".into();
    let branded = renderer
        .render_branded(&brand, &work.join("b4"), &NoObserver)
        .await
        .expect("branded from the intro's keyframe");
    let branded_path = store.join(&branded.video.key);
    let k = probe(&branded_path);
    assert_eq!(frames(&k), 390.0);
    let (kv, ka) = (duration(&k, "video"), duration(&k, "audio"));
    assert!((kv - ka).abs() <= 0.05, "A/V lengths {kv} vs {ka}");
    // The head is the intro's 90 frames: from frame 90 every packet is the main video's own.
    let ours = common::packet_hashes(&branded_path);
    let theirs = common::packet_hashes(&keyed_path);
    let main_keys = common::keyframes(&keyed_path);
    let copied = (90..300).filter(|&i| !main_keys[i]).count();
    let same = (90..300)
        .filter(|&i| !main_keys[i] && ours[i] == theirs[i])
        .count();
    assert!(
        copied > 200 && same == copied,
        "{same} of {copied} packets copied"
    );
    assert_eq!(
        key_positions(&branded_path)[..3],
        [0, 60, 90],
        "the head's GOP, then the main video's keyframe at 3 s"
    );
    let keyed_diff = |n: u32| {
        common::mean_abs_diff(
            &common::frame_gray(&branded_path, n, "64:36"),
            &common::frame_gray(&keyed_path, n, "64:36"),
        )
    };
    assert!(keyed_diff(45) > 8.0, "intro drawn: {}", keyed_diff(45));
    assert!(keyed_diff(70) > 4.0, "intro drawn late: {}", keyed_diff(70));
    assert_eq!(keyed_diff(90), 0.0, "first copied frame");
    assert!(close(card(&branded_path, 300 + 60)), "outro card");
    let (start, end) = (
        common::mean_volume(&branded_path, 10.0, 1.0),
        common::mean_volume(&branded_path, 12.6, 0.4),
    );
    assert!(
        start > -30.0 && start - end > 12.0,
        "music under the outro: {start} dB then {end} dB"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_clip_gets_no_ramp_and_a_missing_main_video_fails() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("store");
    let renderer = Renderer::new(
        RenderConfig::default(),
        Fetcher::new(FetchConfig::default(), None),
        Arc::new(LocalStorage::new(&store, "/files")),
    );
    // A one-clip "main video" made directly (5 s, AAC silence), portrait.
    let main_dir = store.join("videos/one");
    std::fs::create_dir_all(&main_dir).expect("dir");
    common::ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=720x1280:r=30:d=5",
        "-f",
        "lavfi",
        "-i",
        "anullsrc=r=48000:cl=stereo",
        "-t",
        "5",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "aac",
        main_dir.join("video.mp4").to_str().expect("utf-8"),
    ]);
    let job = BrandJob {
        key_prefix: "videos/one".into(),
        main_key: "videos/one/video.mp4".into(),
        clip_frames: BrandJob::standard_clips(1),
        orientation: Orientation::Portrait,
        resolution: Resolution::P720,
        intro: slot("intro-lower-third", vec![("address", text("12 Elm St"))]),
        outro: None,
        speed_ramp: true,
        clip_pace: Pace::Through,
        music: None,
        sound_key: None,
    };
    let b = renderer
        .render_branded(&job, &dir.path().join("w1"), &NoObserver)
        .await
        .expect("branded");
    assert!(!b.speed_ramp, "one clip: no ramp");
    let p = probe(&store.join(&b.video.key));
    assert_eq!(frames(&p), 150.0);
    assert_eq!(stream(&p, "video")["width"].as_u64(), Some(720));

    let missing = BrandJob {
        main_key: "videos/none/video.mp4".into(),
        ..job
    };
    let e = renderer
        .render_branded(&missing, &dir.path().join("w2"), &NoObserver)
        .await
        .expect_err("no main video");
    assert!(matches!(e, JobFailure::Render(_)));
    assert_eq!(e.code(), "render_failed");
}

/// A brand's outro card is encoded once: the next video of the brand copies it from the card
/// cache; another card, or a cached file that does not join, is encoded again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outro_card_is_encoded_once_per_brand() {
    let dir = tempfile::tempdir().expect("temp dir");
    let media = dir.path().join("media");
    std::fs::create_dir_all(&media).expect("media");
    // ffmpeg and ffprobe behind a wrapper that logs each run's output file.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let log = dir.path().join("runs.log");
    let wrapper = bin.join("ffmpeg");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nfor last; do :; done\necho \"$last\" >> '{}'\nexec ffmpeg \"$@\"\n",
            log.display()
        ),
    )
    .expect("wrapper");
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let ffprobe = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v ffprobe"])
            .output()
            .expect("which")
            .stdout,
    )
    .expect("utf-8");
    std::os::unix::fs::symlink(ffprobe.trim(), bin.join("ffprobe")).expect("ffprobe link");
    let body = |p: PathBuf, t: &'static str| Route::Body {
        content_type: t,
        body: Arc::new(std::fs::read(p).expect("read")),
    };
    let server = TestServer::start(
        "127.0.0.1",
        vec![(
            "/a.jpg",
            body(common::picture(&media, "a.jpg", 1280, 720), "image/jpeg"),
        )],
    )
    .await;
    let store = dir.path().join("store");
    let renderer = Renderer::new(
        RenderConfig {
            ffmpeg: wrapper.clone(),
            card_cache: Some("cache".into()),
            ..RenderConfig::default()
        },
        Fetcher::new(
            FetchConfig {
                allow: AllowList::parse("127.0.0.1").expect("allow"),
                ..FetchConfig::default()
            },
            None,
        ),
        Arc::new(LocalStorage::new(&store, "/files")),
    );
    let main = renderer
        .render_video(
            &VideoJob {
                pace: Pace::Engine,
                branded_intro: false,
                branded_sound: None,
                key_prefix: "videos/c".into(),
                clips: vec![ClipRequest {
                    depth: None,
                    image_url: server.url("/a.jpg"),
                    camera_motion: CameraMotion::PushIn,
                    effect: None,
                }],
                orientation: Orientation::Landscape,
                resolution: Resolution::P720,
                engine: Engine::V25,
                audio_url: None,
                transition: stillreel_core::Transition::Cut,
            },
            &dir.path().join("main"),
            &NoObserver,
        )
        .await
        .expect("main video");
    let brand = |name: &str, prefix: &str| BrandJob {
        key_prefix: prefix.into(),
        main_key: main.key.clone(),
        clip_frames: BrandJob::standard_clips(1),
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        intro: None,
        outro: slot("outro-contact-card", vec![("agent_name", text(name))]),
        speed_ramp: false,
        clip_pace: Pace::Engine,
        music: None,
        sound_key: None,
    };
    let cards = || -> Vec<PathBuf> {
        std::fs::read_dir(store.join("cache"))
            .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    let runs = || std::fs::read_to_string(&log).unwrap_or_default();
    let encoded_cards = || runs().lines().filter(|l| *l == "./outro.mp4").count();
    let render = |job: BrandJob, work: &str| {
        let renderer = &renderer;
        let store = &store;
        let work = dir.path().join(work);
        async move {
            let b = renderer
                .render_branded(&job, &work, &NoObserver)
                .await
                .expect("branded");
            store.join(&b.video.key)
        }
    };

    let first = render(brand("Jane Doe", "videos/c/1"), "b1").await;
    assert_eq!(encoded_cards(), 1);
    assert_eq!(cards().len(), 1, "the card is cached");
    assert_eq!(frames(&probe(&first)), 240.0);

    // The same brand again: the card comes from the cache, the same pictures.
    let second = render(brand("Jane Doe", "videos/c/2"), "b2").await;
    assert_eq!(encoded_cards(), 1, "not encoded again: {}", runs());
    assert_eq!(frames(&probe(&second)), 240.0);
    for n in [150, 200, 239] {
        assert_eq!(
            common::mean_abs_diff(
                &common::frame_gray(&first, n, "64:36"),
                &common::frame_gray(&second, n, "64:36"),
            ),
            0.0,
            "frame {n}"
        );
    }

    // Another name is another card.
    let other = render(brand("John Roe", "videos/c/3"), "b3").await;
    assert_eq!(encoded_cards(), 2);
    assert_eq!(cards().len(), 2);
    assert!(
        common::mean_abs_diff(
            &common::frame_gray(&first, 200, "640:360"),
            &common::frame_gray(&other, 200, "640:360"),
        ) > 0.0,
        "the other name is drawn"
    );

    // A cached file that is not a card that joins is not used: the card is encoded again.
    for card in cards() {
        std::fs::write(&card, b"not a video").expect("spoil");
    }
    let again = render(brand("Jane Doe", "videos/c/4"), "b4").await;
    assert_eq!(encoded_cards(), 3);
    assert_eq!(frames(&probe(&again)), 240.0);
    assert_eq!(
        common::mean_abs_diff(
            &common::frame_gray(&first, 200, "64:36"),
            &common::frame_gray(&again, 200, "64:36"),
        ),
        0.0
    );
}
