//! Transitions on real ffmpeg output: a crossfade and a dip to black overlap the clips by
//! 0.5 s at each join (the video is 0.5 s shorter per join, sound and picture together), the
//! blend is visible in the decoded frames of each seam, everything outside the seams is the
//! clips' own packets (only the seams were encoded), and the clips stay as rendered.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{Route, TestServer, num, probe, stream};
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution, Transition};
use stillreel_render::{
    AllowList, ClipRequest, CombineJob, FetchConfig, Fetcher, LocalStorage, NoObserver,
    RenderConfig, Renderer, VideoJob,
};

/// A flat picture of one grey level (so a blend's brightness is easy to predict).
fn flat(dir: &Path, name: &str, grey: u8) -> PathBuf {
    let path = dir.join(name);
    let colour = format!("color=c=0x{grey:02x}{grey:02x}{grey:02x}:s=1280x720:d=1");
    common::ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        &colour,
        "-frames:v",
        "1",
        path.to_str().expect("utf-8"),
    ]);
    path
}

fn mean(bytes: &[u8]) -> f64 {
    bytes.iter().map(|&b| f64::from(b)).sum::<f64>() / bytes.len() as f64
}

/// Packet indices (decode order) of the keyframes.
fn positions(keys: &[bool]) -> Vec<usize> {
    keys.iter()
        .enumerate()
        .filter_map(|(i, &k)| k.then_some(i))
        .collect()
}

fn brightness(path: &Path, n: u32) -> f64 {
    mean(&common::frame_gray(path, n, "32:18"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blended_joins_overlap_the_clips_and_encode_only_the_seams() {
    let dir = tempfile::tempdir().expect("temp dir");
    let media = dir.path().join("media");
    std::fs::create_dir_all(&media).expect("media");
    let body = |p: PathBuf| Route::Body {
        content_type: "image/png",
        body: Arc::new(std::fs::read(p).expect("read")),
    };
    let server = TestServer::start(
        "127.0.0.1",
        vec![
            ("/dark.png", body(flat(&media, "dark.png", 0x20))),
            ("/light.png", body(flat(&media, "light.png", 0xe0))),
            (
                "/music.ogg",
                Route::Body {
                    content_type: "audio/ogg",
                    body: Arc::new(
                        std::fs::read(common::tone(&media, "music.ogg", 20.0)).expect("tone"),
                    ),
                },
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
    // Dark, light, dark: every join changes the brightness.
    let job = VideoJob {
        pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
        branded_intro: false,
        branded_sound: None,
        key_prefix: "videos/x".into(),
        clips: ["/dark.png", "/light.png", "/dark.png"]
            .into_iter()
            .map(|p| ClipRequest {
                image_url: server.url(p),
                camera_motion: CameraMotion::PushIn,
                effect: None,
                depth: None,
            })
            .collect(),
        orientation: Orientation::Landscape,
        resolution: Resolution::P720,
        engine: Engine::V25,
        audio_url: Some(server.url("/music.ogg")),
        transition: Transition::Crossfade,
    };
    let work = dir.path().join("work");
    let faded = renderer
        .render_video(&job, &work.join("x"), &NoObserver)
        .await
        .expect("crossfaded video");
    let faded_path = store.join(&faded.key);

    // Three 5 s clips, two joins of 0.5 s: 14 s, 420 frames, sound as long as the picture.
    assert!((faded.seconds - 14.0).abs() < 1e-9, "{}", faded.seconds);
    let p = probe(&faded_path);
    assert_eq!(num(&stream(&p, "video")["nb_read_frames"]), 420.0);
    let (vd, ad) = (
        num(&stream(&p, "video")["duration"]),
        num(&stream(&p, "audio")["duration"]),
    );
    assert!(
        (vd - 14.0).abs() < 0.05 && (vd - ad).abs() < 0.05,
        "{vd} {ad}"
    );
    // The clips stay as rendered: three 5 s clips of 150 frames.
    assert_eq!(faded.clips.len(), 3);
    for clip in &faded.clips {
        assert!((clip.seconds - 5.0).abs() < 1e-9);
        let c = probe(&store.join(&clip.key));
        assert_eq!(num(&stream(&c, "video")["nb_read_frames"]), 150.0);
    }

    // The blend: clip 0 ends at 150 frames, clip 1 starts blending in at frame 135. Before the
    // blend the picture is dark, half-way light and dark are mixed, after it light.
    let dark = brightness(&faded_path, 130);
    let middle = brightness(&faded_path, 142);
    let light = brightness(&faded_path, 152);
    assert!(dark < 60.0 && light > 190.0, "{dark} {light}");
    assert!(
        (middle - (dark + light) / 2.0).abs() < 30.0,
        "half-way through the crossfade: {middle} between {dark} and {light}"
    );
    // Brightness moves monotonically through the seam (a dissolve, not a jump).
    let ramp: Vec<f64> = (134..=151).map(|n| brightness(&faded_path, n)).collect();
    assert!(
        ramp.windows(2).all(|w| w[1] >= w[0] - 1.0),
        "not a dissolve: {ramp:?}"
    );
    assert!(
        ramp.windows(2).all(|w| w[1] - w[0] < 40.0),
        "a jump: {ramp:?}"
    );

    // The clips of a blended video are keyed where the overlaps begin and end (0.5 s and
    // 4.5 s) besides their GOP (every 2 s, restarting at each keyframe): each seam is then the
    // 15 blended frames alone.
    let clip = |i: usize| common::packet_hashes(&store.join(&faded.clips[i].key));
    let keys = |i: usize| common::keyframes(&store.join(&faded.clips[i].key));
    let (c0, c1, c2) = (clip(0), clip(1), clip(2));
    let (k0, k1, k2) = (keys(0), keys(1), keys(2));
    for k in [&k0, &k1, &k2] {
        assert_eq!(
            positions(k),
            [0, 15, 75, 135],
            "keyframes of a crossfade clip"
        );
    }
    // Only the seams were encoded: outside them every packet is the clips' own.
    // Video layout: c0[0,135) | seam 0 (15) | c1[15,135) | seam 1 (15) | c2[15,150).
    let ours = common::packet_hashes(&faded_path);
    assert_eq!(ours.len(), 420);
    let same = |ours: &[String],
                at: usize,
                from: &[String],
                keys: &[bool],
                range: std::ops::Range<usize>| {
        range
            .clone()
            .filter(|&i| !keys[i])
            .all(|i| ours[at + i - range.start] == from[i])
    };
    assert!(same(&ours, 0, &c0, &k0, 0..135), "clip 0 copied");
    assert!(same(&ours, 150, &c1, &k1, 15..135), "clip 1 copied");
    assert!(same(&ours, 285, &c2, &k2, 15..150), "clip 2 copied");
    // The seams are 15 frames: the video's keyframes are the clips' and one per seam.
    assert_eq!(
        positions(&common::keyframes(&faded_path)),
        [0, 15, 75, 135, 150, 210, 270, 285, 345, 405],
        "seams of 15 frames at 135 and 270"
    );
    // The seams are new pictures (a blend is in no clip). Of a fade between flat pictures the
    // B-frames are predicted exactly from their neighbours and encode as all-skip packets,
    // byte for byte those of a still clip; the I- and P-frames (one in four or more) are new.
    let new = (135..150)
        .filter(|&n| !c0.contains(&ours[n]) && !c1.contains(&ours[n]))
        .count();
    assert!(new >= 4, "{new} of the seam's 15 packets are new");
    // Both seams were encoded by one ffmpeg run into one file, keyed where each starts, and
    // the concat list copied each seam out of it.
    let stitch_dir = work.join("x").join("stitch");
    assert!(stitch_dir.join("seams-000.mp4").is_file());
    assert!(!stitch_dir.join("seams-001.mp4").exists(), "one run");
    let seams_file = common::packet_hashes(&stitch_dir.join("seams-000.mp4"));
    let seam_keys = common::keyframes(&stitch_dir.join("seams-000.mp4"));
    assert_eq!(seams_file.len(), 30);
    assert_eq!(positions(&seam_keys), [0, 15]);
    assert!(
        same(&ours, 135, &seams_file, &seam_keys, 0..15),
        "seam 0 copied"
    );
    assert!(
        same(&ours, 270, &seams_file, &seam_keys, 15..30),
        "seam 1 copied"
    );

    // The copy's facts (keyframe times, parameter-set digest, size, colour) are read from the
    // MP4 boxes in process: the same facts ffprobe gives, for every file the stitch met
    // (clips, seams in the work dir) and the video itself.
    let mut files = Vec::new();
    let mut dirs = vec![work.clone(), store.clone()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).expect("dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "mp4") {
                files.push(path);
            }
        }
    }
    assert!(files.len() >= 4, "clips and video: {files:?}");
    for file in &files {
        let data = std::fs::read(file).expect("read");
        let ours =
            stillreel_render::media::keyframes::facts_from_boxes(&data).expect("from the boxes");
        let (dir, name) = (file.parent().expect("dir"), file.file_name().expect("name"));
        let theirs = stillreel_render::media::keyframes::run_ffprobe(
            Path::new("ffprobe"),
            dir,
            &name.to_string_lossy(),
            stillreel_render::ffmpeg::runner::Step::Stitch,
        )
        .expect("ffprobe");
        assert_eq!(ours, theirs, "{}", file.display());
    }

    // The same clips joined with a dip to black: the middle of each seam is dark, and the
    // length is the same.
    let keys_in_order: Vec<String> = faded.clips.iter().map(|c| c.key.clone()).collect();
    let dip = renderer
        .combine(
            &CombineJob {
                key_prefix: "videos/dip".into(),
                clip_keys: keys_in_order.clone(),
                orientation: Orientation::Landscape,
                resolution: Resolution::P720,
                audio_url: None,
                transition: Transition::FadeBlack,
            },
            &work.join("dip"),
            &NoObserver,
        )
        .await
        .expect("fade-black video");
    let dip_path = store.join(&dip.key);
    assert!((dip.seconds - 14.0).abs() < 1e-9);
    let q = probe(&dip_path);
    assert_eq!(num(&stream(&q, "video")["nb_read_frames"]), 420.0);
    // Darker than both sides somewhere in the seam (the dark picture is grey 0x20).
    let dip_frames: Vec<f64> = (135..150).map(|n| brightness(&dip_path, n)).collect();
    let black = dip_frames.iter().copied().fold(f64::MAX, f64::min);
    assert!(black < 12.0, "black in the dip: {dip_frames:?}");
    assert!(brightness(&dip_path, 152) > 190.0);
    // A cut of the same clips: 450 frames, a hard change from 149 to 150.
    let cut = renderer
        .combine(
            &CombineJob {
                key_prefix: "videos/cut".into(),
                clip_keys: keys_in_order,
                orientation: Orientation::Landscape,
                resolution: Resolution::P720,
                audio_url: None,
                transition: Transition::Cut,
            },
            &work.join("cut"),
            &NoObserver,
        )
        .await
        .expect("cut video");
    let cut_path = store.join(&cut.key);
    assert!((cut.seconds - 15.0).abs() < 1e-9);
    assert!(brightness(&cut_path, 149) < 60.0 && brightness(&cut_path, 150) > 190.0);

    // Clips rendered for a cut video carry no extra keyframe (GOP only)...
    let plain = renderer
        .render_video(
            &VideoJob {
                key_prefix: "videos/plain".into(),
                transition: Transition::Cut,
                audio_url: None,
                ..job.clone()
            },
            &work.join("plain"),
            &NoObserver,
        )
        .await
        .expect("cut video");
    let plain_keys: Vec<String> = plain.clips.iter().map(|c| c.key.clone()).collect();
    let pk = |i: usize| common::keyframes(&store.join(&plain_keys[i]));
    let ph = |i: usize| common::packet_hashes(&store.join(&plain_keys[i]));
    for i in 0..3 {
        assert_eq!(
            positions(&pk(i)),
            [0, 60, 120],
            "a cut clip keeps its GOP only"
        );
    }
    // ...so a crossfade combining them encodes longer seams: the left clip from its last
    // keyframe before the overlap (120), the right one to its first after it (60), 75 frames.
    let late = renderer
        .combine(
            &CombineJob {
                key_prefix: "videos/late".into(),
                clip_keys: plain_keys.clone(),
                orientation: Orientation::Landscape,
                resolution: Resolution::P720,
                audio_url: None,
                transition: Transition::Crossfade,
            },
            &work.join("late"),
            &NoObserver,
        )
        .await
        .expect("crossfade of cut clips");
    let late_path = store.join(&late.key);
    let ours = common::packet_hashes(&late_path);
    assert_eq!(ours.len(), 420);
    // Layout: c0[0,120) | seam 0 (75) | c1[60,120) | seam 1 (75) | c2[60,150).
    assert!(same(&ours, 0, &ph(0), &pk(0), 0..120), "clip 0 copied");
    assert!(same(&ours, 195, &ph(1), &pk(1), 60..120), "clip 1 copied");
    assert!(same(&ours, 330, &ph(2), &pk(2), 60..150), "clip 2 copied");
    // Every part of the video starts at a keyframe: the copies at the clips' (0, 195, 330),
    // the seams at the seams file's, the second one forced there (its frame 75).
    let late_video_keys = positions(&common::keyframes(&late_path));
    for part in [0, 120, 195, 255, 330] {
        assert!(
            late_video_keys.contains(&part),
            "{part}: {late_video_keys:?}"
        );
    }
    let late_file = work.join("late").join("seams-000.mp4");
    let (late_seams, late_keys) = (
        common::packet_hashes(&late_file),
        common::keyframes(&late_file),
    );
    assert_eq!(late_seams.len(), 150);
    assert!(
        same(&ours, 120, &late_seams, &late_keys, 0..75),
        "seam 0 copied"
    );
    assert!(
        same(&ours, 255, &late_seams, &late_keys, 75..150),
        "seam 1 copied"
    );
    let middle = brightness(&late_path, 142);
    assert!(
        (90.0..170.0).contains(&middle),
        "half-way through: {middle}"
    );
}
