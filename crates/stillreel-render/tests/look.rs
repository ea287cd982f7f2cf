//! How a clip looks beyond its camera: framing (`fit`) and captions, through the real clip step
//! (prepare, canvas, frames drawn in Rust, x264, ffprobe check, store), judged on decoded
//! frames. Synthetic photos with a known subject, and real photographs from Debian's
//! `lomiri-wallpapers-16.04` (docs/EFFECTS.md "Real photographs"), which the suite reads where
//! installed and requires when `STILLREEL_REQUIRE_PHOTOS` is set (scripts/test.sh sets it).
//!
//! With `STILLREEL_LOOK_DIR` set, each test leaves first/middle/last frame strips there, to be
//! looked at.

mod common;
mod photos;

use std::path::{Path, PathBuf};

use stillreel_core::{CameraMotion, CaptionStyle, Engine, Fit, Orientation, Resolution};
use stillreel_render::ffmpeg::command::clip_caption::{self, ClipCaption};
use stillreel_render::{ClipJob, ClipLook, JobFailure, NoObserver, PrepareJob, Renderer};

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    renderer: Renderer,
}

fn setup(photos: Vec<PathBuf>) -> Setup {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().to_path_buf();
    let (renderer, _) = photos::photo_renderer(&root, photos);
    Setup {
        _dir: dir,
        root,
        renderer,
    }
}

/// Renders photo `photo` as one 720p v25 clip with `look`; the stored clip's path.
async fn render(
    s: &Setup,
    name: &str,
    photo: usize,
    orientation: Orientation,
    motion: CameraMotion,
    look: ClipLook,
) -> Result<PathBuf, JobFailure> {
    let prefix = format!("t/{name}");
    let work = s.root.join(format!("work-{name}"));
    let prepared = s
        .renderer
        .prepare(
            &PrepareJob {
                key_prefix: prefix.clone(),
                images: vec![(0, format!("http://test.invalid/f/{photo}"))],
                audio_url: None,
            },
            &work,
            &NoObserver,
        )
        .await?;
    let job = ClipJob {
        key_prefix: prefix,
        index: 0,
        token: None,
        input: prepared.inputs[0].clone(),
        camera_motion: motion,
        effect: None,
        orientation,
        resolution: Resolution::P720,
        engine: Engine::V25,
        depth: None,
        depth_note: None,
        pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
        usage: stillreel_render::ClipUse::default(),
        look,
    };
    let clip = s.renderer.render_clip(&job, &work, &NoObserver).await?;
    let path = s.root.join("store").join(clip.key);
    keep_strip(&path, name);
    Ok(path)
}

/// With `STILLREEL_LOOK_DIR` set: the clip's frames 0, 75 and 149 side by side, as a JPEG.
fn keep_strip(clip: &Path, name: &str) {
    let Ok(dir) = std::env::var("STILLREEL_LOOK_DIR") else {
        return;
    };
    let out = Path::new(&dir).join(format!("{name}.jpg"));
    common::ffmpeg(&[
        "-i",
        &clip.to_string_lossy(),
        "-vf",
        "select='eq(n\\,0)+eq(n\\,75)+eq(n\\,149)',scale=426:-2,tile=3x1",
        "-frames:v",
        "1",
        "-q:v",
        "4",
        &out.to_string_lossy(),
    ]);
}

fn look(fit: Fit) -> ClipLook {
    ClipLook { fit, caption: None }
}

/// A 600 × 900 portrait photo: a softly textured beige wall, and a red disk (radius 45, a
/// subject) centred at (300, 110), near the top edge.
fn subject_near_top(path: &Path) {
    let (w, h) = (600u32, 900u32);
    let data: Vec<u8> = (0..h)
        .flat_map(|y| {
            (0..w).flat_map(move |x| {
                let (dx, dy) = (f64::from(x) - 300.0, f64::from(y) - 110.0);
                if dx * dx + dy * dy <= 45.0 * 45.0 {
                    let stripe = if (x / 3 + y / 3) % 2 == 0 { 30 } else { 0 };
                    [200 - stripe, 30, 30]
                } else {
                    let grain = ((x * 7 + y * 13) % 11) as u8;
                    [200 + grain, 186 + grain, 160 + grain]
                }
            })
        })
        .collect();
    photos::write_png(path, w, h, png::ColorType::Rgb, &data);
}

/// How many pixels of an RGB frame are the subject's red.
fn red_pixels(rgb: &[u8]) -> usize {
    rgb.chunks_exact(3)
        .filter(|p| p[0] > 140 && p[1] < 90 && p[2] < 90)
        .count()
}

#[tokio::test]
async fn smart_framing_keeps_a_subject_near_the_edge_that_cover_cuts_off() {
    let dir = tempfile::tempdir().expect("dir");
    let photo = dir.path().join("subject.png");
    subject_near_top(&photo);
    let s = setup(vec![photo]);
    let landscape = Orientation::Landscape;
    let smart = render(
        &s,
        "smart",
        0,
        landscape,
        CameraMotion::PushIn,
        look(Fit::Smart),
    )
    .await
    .expect("smart clip");
    let cover = render(
        &s,
        "cover",
        0,
        landscape,
        CameraMotion::PushIn,
        look(Fit::Cover),
    )
    .await
    .expect("cover clip");
    // The disk covers about 6,360 photo pixels; covered at 1280/600 = 2.13 ×, about 29,000
    // frame pixels, more once pushed in.
    for n in [0, 75, 149] {
        let kept = red_pixels(&common::frame_rgb(&smart, n, "1280:720"));
        assert!(kept > 25_000, "smart frame {n}: {kept} red pixels");
        let cut = red_pixels(&common::frame_rgb(&cover, n, "1280:720"));
        assert!(cut < 500, "cover frame {n}: {cut} red pixels");
    }
}

#[tokio::test]
async fn contain_blur_shows_the_whole_photo_over_a_dimmed_blurred_fill() {
    let dir = tempfile::tempdir().expect("dir");
    let photo = dir.path().join("subject.png");
    subject_near_top(&photo);
    let s = setup(vec![photo]);
    // `auto` contains a portrait photo in a landscape frame.
    let clip = render(
        &s,
        "contain",
        0,
        Orientation::Landscape,
        CameraMotion::PushOut,
        look(Fit::Auto),
    )
    .await
    .expect("clip");
    // The last frame of a push-out shows the whole canvas: the photo is 480 × 720 in the middle
    // (x 400..880), the subject whole inside it.
    let rgb = common::frame_rgb(&clip, 149, "1280:720");
    let red = red_pixels(&rgb);
    // The disk, contained at 720/900 = 0.8 ×: about 4,070 pixels.
    assert!((3_000..6_000).contains(&red), "{red} red pixels");
    let column_mean = |x0: usize, x1: usize| {
        let (mut sum, mut n) = (0.0, 0.0);
        for y in 0..720 {
            for x in x0..x1 {
                let p = &rgb[(y * 1280 + x) * 3..];
                sum += 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]);
                n += 1.0;
            }
        }
        sum / n
    };
    let photo = column_mean(450, 830);
    let fill = column_mean(20, 360);
    // The beige wall is about 190; its fill is dimmed to about half.
    assert!(photo > 170.0, "photo {photo}");
    assert!(
        fill < photo * 0.65 && fill > photo * 0.3,
        "fill {fill} photo {photo}"
    );
    // Blurred: neighbouring fill pixels barely differ (the photo's grain is gone).
    let mut step = 0.0;
    for y in 100..600 {
        for x in 20..359 {
            let a = rgb[(y * 1280 + x) * 3] as f64;
            let b = rgb[(y * 1280 + x + 1) * 3] as f64;
            step += (a - b).abs();
        }
    }
    let step = step / (500.0 * 339.0);
    assert!(step < 1.0, "fill mean step {step}");
}

#[tokio::test]
async fn the_ffmpeg_canvas_frames_a_photo_as_the_in_process_one_does() {
    let dir = tempfile::tempdir().expect("dir");
    let png = dir.path().join("subject.png");
    subject_near_top(&png);
    // The same pixels as lossless WebP, which only ffmpeg decodes: its canvas runs the thumbnail
    // and the framing graphs.
    let webp = dir.path().join("subject.webp");
    common::ffmpeg(&[
        "-i",
        &png.to_string_lossy(),
        "-c:v",
        "libwebp",
        "-lossless",
        "1",
        &webp.to_string_lossy(),
    ]);
    let s = setup(vec![png, webp]);
    for (fit, motion) in [
        (Fit::Smart, CameraMotion::PushIn),
        (Fit::ContainBlur, CameraMotion::PushOut),
    ] {
        let landscape = Orientation::Landscape;
        let name = format!("{fit}");
        let ours = render(&s, &format!("{name}-png"), 0, landscape, motion, look(fit))
            .await
            .expect("png clip");
        let theirs = render(&s, &format!("{name}-webp"), 1, landscape, motion, look(fit))
            .await
            .expect("webp clip");
        for n in [0, 149] {
            let (a, b) = (
                common::frame_rgb(&ours, n, "1280:720"),
                common::frame_rgb(&theirs, n, "1280:720"),
            );
            let diff = common::mean_abs_diff(&a, &b);
            assert!(diff < 4.0, "{fit} frame {n}: mean difference {diff}");
            let (ra, rb) = (red_pixels(&a) as f64, red_pixels(&b) as f64);
            assert!(
                (ra - rb).abs() <= 0.05 * ra.max(1.0),
                "{fit} frame {n}: red {ra} and {rb}"
            );
        }
    }
}

/// The luminance (WCAG, 0..1) of an sRGB pixel.
fn luminance(p: &[u8]) -> f64 {
    clip_caption::srgb_luminance([p[0], p[1], p[2]])
}

#[tokio::test]
async fn a_caption_fades_in_on_its_plate_and_reads_against_it() {
    let dir = tempfile::tempdir().expect("dir");
    // A bright, near-white photo: the hardest case for white text.
    let photo = dir.path().join("white.png");
    let data: Vec<u8> = (0..720 * 1280)
        .flat_map(|i| {
            let grain = ((i * 7) % 13) as u8;
            [235 + grain, 235 + grain, 232 + grain]
        })
        .collect();
    photos::write_png(&photo, 1280, 720, png::ColorType::Rgb, &data);
    let s = setup(vec![photo]);
    let caption = ClipCaption {
        // Characters the filtergraph and drawtext would read as syntax: drawn as text.
        text: "Bob's: 50% off, [new]; {x} \\\\".to_owned(),
        style: CaptionStyle::Label,
        plate: clip_caption::DEFAULT_PLATE.to_owned(),
        at_top: false,
    };
    let layout = clip_caption::layout(&caption, 1280, 720);
    let clip = render(
        &s,
        "caption",
        0,
        Orientation::Landscape,
        CameraMotion::PushIn,
        ClipLook {
            fit: Fit::Cover,
            caption: Some(caption),
        },
    )
    .await
    .expect("clip");
    // At the first frame the caption has not faded in: the plate's place is the white photo.
    let (first, _, _) = plate_and_text(&common::frame_rgb(&clip, 0, "1280:720"), &layout, 0);
    assert!(first > 0.7, "first frame plate luminance {first}");
    // In the middle: a dark plate with bright letters on it, contrast ≥ 4.5 (WCAG AA).
    let (plate, text, contrast) =
        plate_and_text(&common::frame_rgb(&clip, 75, "1280:720"), &layout, 0);
    assert!(plate < 0.2, "plate luminance {plate}");
    assert!(
        contrast >= 4.5,
        "text {text} on plate {plate}: contrast {contrast}"
    );
}

/// On a 1280-wide RGB frame, the plate of line `line` of `layout`: its luminance (the lower
/// quartile of the box, which is mostly plate), its letters' (the 98th percentile) and their
/// contrast ratio.
fn plate_and_text(
    rgb: &[u8],
    layout: &clip_caption::CaptionLayout,
    line: usize,
) -> (f64, f64, f64) {
    plate_and_text_at(rgb, 1280, layout, line)
}

/// [`plate_and_text`] on a frame `frame_w` pixels wide.
fn plate_and_text_at(
    rgb: &[u8],
    frame_w: usize,
    layout: &clip_caption::CaptionLayout,
    line: usize,
) -> (f64, f64, f64) {
    let (text, left, top) = &layout.lines[line];
    let width = (layout.font.line_em(text) * f64::from(layout.size)) as usize;
    let left = left.unwrap_or((frame_w as u32 - width as u32) / 2) as usize;
    let (x0, y0) = (left + 2, *top as usize + 2);
    let (x1, y1) = (left + width - 2, *top as usize + layout.size as usize);
    let mut values: Vec<f64> = (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (y, x)))
        .map(|(y, x)| luminance(&rgb[(y * frame_w + x) * 3..]))
        .collect();
    values.sort_by(f64::total_cmp);
    let plate = values[values.len() / 4];
    let letters = values[values.len() * 98 / 100];
    (plate, letters, (letters + 0.05) / (plate + 0.05))
}

#[tokio::test]
async fn real_portrait_photographs_keep_their_subjects_in_a_landscape_video() {
    let Some(photos) = photos::photographs(&[
        "friends_by_Aitzol_Berasategi.jpg",
        "Wine_by_Jakkub_Mede.jpg",
    ]) else {
        return;
    };
    let s = setup(photos);
    let landscape = Orientation::Landscape;
    // The dogs look out of the porch in the upper part of the photo (their heads between 20 %
    // and 45 % of its height, marked once by eye); a centre cover keeps 37.5 % of the height
    // around the middle (31 %..69 %), cutting the upper dog's head. Smart moves the window up.
    let mut fur = Vec::new();
    for (name, photo, fit) in [
        ("dogs-smart", 0, Fit::Smart),
        ("dogs-cover", 0, Fit::Cover),
        ("dogs-auto", 0, Fit::Auto),
        ("wine-smart", 1, Fit::Smart),
        ("wine-cover", 1, Fit::Cover),
        ("wine-auto", 1, Fit::Auto),
    ] {
        let clip = render(&s, name, photo, landscape, CameraMotion::PushIn, look(fit))
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if photo == 0 {
            // The spaniels' red-brown fur: in the top quarter of the first frame (the upper
            // dog's head) and in the whole frame.
            let rgb = common::frame_rgb(&clip, 0, "1280:720");
            let is_fur = |p: &[u8]| {
                let (r, g, b) = (i32::from(p[0]), i32::from(p[1]), i32::from(p[2]));
                r > 110 && r - b > 60 && r > g && g > b
            };
            let top = rgb[..1280 * 180 * 3]
                .chunks_exact(3)
                .filter(|p| is_fur(p))
                .count();
            eprintln!("{name}: {top} fur pixels in the top quarter");
            fur.push(top);
        }
    }
    // Smart keeps the upper dog's head; the centre cover cuts it off, leaving its chin.
    assert!(
        fur[0] > 5 * fur[1].max(1) / 2,
        "fur in the top quarter: smart {} cover {}",
        fur[0],
        fur[1]
    );
    // Auto contains the whole photo, both dogs small in the middle.
    assert!(fur[2] > 0, "auto: {}", fur[2]);
    // Captions on the interior, both styles, in a portrait video: legible on their plates.
    for (name, text, style) in [
        (
            "wine-label",
            "Chef's kitchen\nOpen plan",
            CaptionStyle::Label,
        ),
        (
            "wine-facts",
            "3 bd · 2 ba · 1,850 sq ft",
            CaptionStyle::Facts,
        ),
    ] {
        let caption = ClipCaption {
            text: text.to_owned(),
            style,
            plate: clip_caption::DEFAULT_PLATE.to_owned(),
            at_top: false,
        };
        let layout = clip_caption::layout(&caption, 720, 1280);
        let look = ClipLook {
            fit: Fit::Auto,
            caption: Some(caption),
        };
        let clip = render(
            &s,
            name,
            1,
            Orientation::Portrait,
            CameraMotion::PushIn,
            look,
        )
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let rgb = common::frame_rgb(&clip, 75, "720:1280");
        for line in 0..layout.lines.len() {
            let (plate, letters, contrast) = plate_and_text_at(&rgb, 720, &layout, line);
            assert!(
                contrast >= 4.5,
                "{name} line {line}: {letters} on {plate}: {contrast}"
            );
        }
    }
}
