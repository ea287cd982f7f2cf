//! HEIC pictures through the fetcher and the renderer, with fixtures made by `heif-enc` at
//! test time: decoded to a JPEG the rest of the pipeline reads, turned upright whether EXIF or
//! HEIF's `irot` says how (never both), held to the picture limits before decoding, and
//! refused with a clear reason when damaged.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use common::heic::{self, BOTTOM, Stored, TOP};
use common::{Route, TestServer};
use stillreel_camera::input::ExifOrientation;
use stillreel_core::media::{MediaClass, MediaFormat};
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution};
use stillreel_render::media::fetch::FetchedMedia;
use stillreel_render::media::heif::HeifDecoder;
use stillreel_render::{
    AllowList, ClipRequest, FetchConfig, FetchError, Fetcher, LocalStorage, MediaErrorKind,
    NoObserver, RenderConfig, Renderer, VideoJob,
};

/// The fixtures, served by a local server as `/<name>` with `image/heic`.
struct Fixtures {
    dir: tempfile::TempDir,
    server: TestServer,
}

/// Displayed size of the two-band fixtures: portrait, as phone photos are.
const SHOWN: (u32, u32) = (480, 640);

impl Fixtures {
    async fn new() -> Fixtures {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        let (w, h) = SHOWN;
        let upright = heic::two_bands(d, "upright.heic", w, h, Stored::Upright);
        let exif = heic::two_bands(d, "exif.heic", w, h, Stored::ExifTurned);
        let irot = heic::two_bands(d, "irot.heic", w, h, Stored::IrotTurned);
        let two = heic::two_pictures(d, "two.heic");
        let bytes = std::fs::read(&upright).expect("read upright");
        let files: Vec<(&'static str, Vec<u8>)> = vec![
            ("/upright.heic", bytes.clone()),
            ("/exif.heic", std::fs::read(&exif).expect("read exif")),
            ("/irot.heic", std::fs::read(&irot).expect("read irot")),
            ("/two.heic", std::fs::read(&two).expect("read two")),
            // 20000 × 20000 declared over a 480 × 640 picture's data.
            (
                "/bomb.heic",
                heic::with_declared_size(&bytes, 20_000, 20_000),
            ),
            // A grid whose ispe says 1000 × 1000 and whose description assembles 16384 ×
            // 16384 of one 512 × 512 tile; and an honest grid of that size.
            (
                "/grid-bomb.heic",
                heic::grid((1000, 1000), (16_384, 16_384)),
            ),
            ("/grid.heic", heic::grid((1000, 1000), (1000, 1000))),
            // The brands and the start of the meta box, then zeros.
            ("/garbage.heic", {
                let mut b = bytes[..40].to_vec();
                b.resize(4000, 0);
                b
            }),
            // Every box reads; the picture data ends half way.
            ("/cut.heic", heic::with_data_cut(&bytes)),
        ];
        let routes = files
            .into_iter()
            .map(|(path, body)| {
                (
                    path,
                    Route::Body {
                        content_type: "image/heic",
                        body: Arc::new(body),
                    },
                )
            })
            .collect();
        let server = TestServer::start("127.0.0.1", routes).await;
        Fixtures { dir, server }
    }

    fn fetcher(&self, heif: HeifDecoder) -> Fetcher {
        let config = FetchConfig {
            allow: AllowList::parse("127.0.0.1").expect("allow list"),
            total_timeout: Duration::from_secs(30),
            heif,
            ..FetchConfig::default()
        };
        Fetcher::new(config, None)
    }

    async fn fetch(&self, fetcher: &Fetcher, name: &str) -> Result<FetchedMedia, FetchError> {
        let work = self
            .dir
            .path()
            .join("work")
            .join(name.trim_start_matches('/'));
        std::fs::create_dir_all(&work).expect("work dir");
        fetcher
            .fetch_as(
                &self.server.url(name),
                MediaClass::Image,
                &work,
                "image-000",
                "image_inputs[0].image_url",
            )
            .await
    }
}

/// Decodes a JPEG file's stored pixels with ffmpeg and reads the middle of each quarter:
/// [top-left, top-right, bottom-left, bottom-right] (at 8 × 8, pixels 1 and 6 of rows 1 and 6).
fn quarters(path: &Path) -> Vec<[u8; 3]> {
    let out = std::process::Command::new("ffmpeg")
        // The stored pixels: ffmpeg would otherwise turn them by the EXIF tag itself.
        .args(["-nostdin", "-v", "error", "-noautorotate", "-i"])
        .arg(path)
        .args([
            "-vf",
            "scale=8:8,format=rgb24",
            "-frames:v",
            "1",
            "-f",
            "rawvideo",
            "-",
        ])
        .output()
        .expect("run ffmpeg");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let px = |x: usize, y: usize| {
        let at = (y * 8 + x) * 3;
        [out.stdout[at], out.stdout[at + 1], out.stdout[at + 2]]
    };
    vec![px(1, 1), px(6, 1), px(1, 6), px(6, 6)]
}

#[track_caller]
fn assert_colour(got: [u8; 3], want: [u8; 3], what: &str) {
    let off = got
        .iter()
        .zip(want)
        .map(|(g, w)| g.abs_diff(w))
        .max()
        .unwrap_or(0);
    assert!(off <= 24, "{what}: {got:?}, expected about {want:?}");
}

/// The JPEG at `path` shown with `orientation`: its quarters as a viewer sees them.
fn shown_quarters(path: &Path, orientation: ExifOrientation) -> Vec<[u8; 3]> {
    let q = quarters(path);
    match orientation.0 {
        1 => q,
        // Turned clockwise: the left column becomes the top row.
        6 => vec![q[2], q[0], q[3], q[1]],
        other => panic!("orientation {other} not expected here"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heic_is_decoded_to_an_upright_jpeg_by_exif_or_irot_never_both() {
    let fixtures = Fixtures::new().await;
    let fetcher = fixtures.fetcher(HeifDecoder::default());
    for (name, orientation) in [
        ("/upright.heic", ExifOrientation::UPRIGHT),
        // No HEIF transform: the EXIF tag travels in the JPEG and is honoured like a JPEG's.
        ("/exif.heic", ExifOrientation(6)),
        // irot applied by the decoder; the EXIF block (also saying 6) removed.
        ("/irot.heic", ExifOrientation::UPRIGHT),
    ] {
        let media = fixtures.fetch(&fetcher, name).await.expect(name);
        assert_eq!(media.format, MediaFormat::Jpeg, "{name}");
        assert_eq!(media.path.extension().and_then(|e| e.to_str()), Some("jpg"));
        let jpeg = std::fs::read(&media.path).expect("read decoded");
        assert_eq!(&jpeg[..3], &[0xff, 0xd8, 0xff], "{name}: a JPEG");
        assert_eq!(media.bytes, jpeg.len() as u64);
        assert_eq!(media.orientation, orientation, "{name}");
        assert_eq!(
            ExifOrientation::read(&jpeg),
            orientation,
            "{name}: the file agrees"
        );
        assert_eq!(media.upright_dimensions(), Some(SHOWN), "{name}");
        let shown = shown_quarters(&media.path, media.orientation);
        for (i, want) in [TOP, TOP, BOTTOM, BOTTOM].into_iter().enumerate() {
            assert_colour(shown[i], want, &format!("{name} quarter {i}"));
        }
        // Only the JPEG is left in the work folder: the decoder's folder is gone.
        let left: Vec<PathBuf> = std::fs::read_dir(media.path.parent().expect("dir"))
            .expect("list")
            .map(|e| e.expect("entry").path())
            .collect();
        assert_eq!(left, vec![media.path.clone()], "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heic_limits_and_damage_fail_with_the_field_and_a_reason() {
    let fixtures = Fixtures::new().await;
    // The bomb is refused from its header: with no decoder at all, the answer is the same.
    let no_decoder = fixtures.fetcher(HeifDecoder {
        program: PathBuf::from("/nonexistent/heif-convert"),
        memory_limit: None,
        ..HeifDecoder::default()
    });
    let bomb = fixtures
        .fetch(&no_decoder, "/bomb.heic")
        .await
        .expect_err("bomb");
    assert_eq!(bomb.kind, MediaErrorKind::TooLarge, "{bomb}");
    assert!(!bomb.transient);
    assert_eq!(
        bomb.message,
        "image_inputs[0].image_url is 20000×20000 pixels (400 megapixels); the limit is 50 megapixels"
    );
    // A grid is held to the cap by the size it assembles, not by its ispe.
    let grid_bomb = fixtures
        .fetch(&no_decoder, "/grid-bomb.heic")
        .await
        .expect_err("grid bomb");
    assert_eq!(grid_bomb.kind, MediaErrorKind::TooLarge, "{grid_bomb}");
    assert!(!grid_bomb.transient);
    assert_eq!(
        grid_bomb.message,
        "image_inputs[0].image_url is 16384×16384 pixels (268.435 megapixels); the limit is 50 megapixels"
    );
    // Several pictures are refused from the header too, before any is decoded.
    let two = fixtures
        .fetch(&no_decoder, "/two.heic")
        .await
        .expect_err("two pictures");
    assert_eq!(two.kind, MediaErrorKind::Unsupported, "{two}");
    assert!(
        two.message
            .contains("holds 2 pictures; send one picture per file"),
        "{two}"
    );
    // The same picture's real header (and a grid within the cap) passes, so only then is the
    // missing decoder met.
    for name in ["/upright.heic", "/grid.heic"] {
        let missing = fixtures
            .fetch(&no_decoder, name)
            .await
            .expect_err("no decoder");
        assert_eq!(missing.kind, MediaErrorKind::Unsupported, "{name}");
        assert!(
            missing.message.contains("cannot decode HEIC pictures"),
            "{name}: {missing}"
        );
    }

    let fetcher = fixtures.fetcher(HeifDecoder::default());
    let cases: [(&str, &str); 3] = [
        ("/garbage.heic", "is damaged"),
        (
            "/cut.heic",
            "could not be decoded: Could not read HEIF/AVIF file",
        ),
        ("/two.heic", "holds 2 pictures; send one picture per file"),
    ];
    for (name, want) in cases {
        let err = fixtures.fetch(&fetcher, name).await.expect_err(name);
        assert_eq!(err.kind, MediaErrorKind::Unsupported, "{name}: {err}");
        assert_eq!(err.code(), "media_unsupported");
        assert!(!err.transient, "{name}");
        assert!(err.message.contains(want), "{name}: {err}");
        assert!(
            err.message.contains("127.0.0.1"),
            "{name} names the host: {err}"
        );
        assert!(
            !err.message
                .contains(&*fixtures.dir.path().to_string_lossy()),
            "{name}: no path of ours in {err}"
        );
    }

    // A decoder that hangs is killed at its time limit.
    let hang = fixtures.dir.path().join("hang.sh");
    std::fs::write(&hang, "#!/bin/sh\nexec sleep 30\n").expect("write script");
    std::fs::set_permissions(&hang, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let hanging = fixtures.fetcher(HeifDecoder {
        program: hang,
        time_limit: Duration::from_secs(1),
        ..HeifDecoder::default()
    });
    let started = std::time::Instant::now();
    let err = fixtures
        .fetch(&hanging, "/upright.heic")
        .await
        .expect_err("hangs");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(
        err.message
            .ends_with("could not be decoded: decoding took longer than 1 s"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heic_clips_render_upright_in_the_pictures_colours() {
    let fixtures = Fixtures::new().await;
    let fetcher = fixtures.fetcher(HeifDecoder::default());
    let store = fixtures.dir.path().join("store");
    let storage = Arc::new(LocalStorage::new(&store, "/files"));
    let renderer = Renderer::new(RenderConfig::default(), fetcher, storage);
    let names = ["/upright.heic", "/exif.heic", "/irot.heic"];
    let job = VideoJob {
        pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
        branded_intro: false,
        branded_sound: None,
        key_prefix: "videos/heic".to_owned(),
        clips: names
            .iter()
            .map(|name| ClipRequest {
                depth: None,
                image_url: fixtures.server.url(name),
                camera_motion: CameraMotion::PushIn,
                effect: None,
            })
            .collect(),
        orientation: Orientation::Portrait,
        resolution: Resolution::P720,
        engine: Engine::V25,
        audio_url: None,
        transition: stillreel_core::Transition::Cut,
    };
    let video = renderer
        .render_video(&job, &fixtures.dir.path().join("render"), &NoObserver)
        .await
        .expect("render");
    let path = store.join(&video.key);
    let probe = common::probe(&path);
    let v = common::stream(&probe, "video");
    assert_eq!(v["codec_name"], "h264");
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(720), Some(1280))
    );
    assert_eq!(v["pix_fmt"], "yuv420p");
    let duration = common::num(&probe["format"]["duration"]);
    assert!((duration - 15.0).abs() <= 0.1, "{duration}");
    for (clip, name) in video.clips.iter().zip(names) {
        let clip = store.join(&clip.key);
        // The first frame at 8 × 8: the top band above, the bottom band below, in the
        // picture's colours (a picture turned wrong shows them side by side instead).
        let rgb = common::frame_rgb(&clip, 0, "8:8");
        let px = |x: usize, y: usize| {
            let at = (y * 8 + x) * 3;
            [rgb[at], rgb[at + 1], rgb[at + 2]]
        };
        for x in [1, 6] {
            assert_colour(px(x, 1), TOP, &format!("{name} top, column {x}"));
            assert_colour(px(x, 6), BOTTOM, &format!("{name} bottom, column {x}"));
        }
    }
}
