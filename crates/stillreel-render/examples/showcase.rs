//! Renders through the real pipeline (own-file fetch, clip graph with effects, stitch, branded
//! render) from local files, for `scripts/effects_gallery.sh` and `bench/effects.sh`. Prints one
//! JSON object per run.
//!
//! ```text
//! showcase clip  <out dir> <WxH> <motion> <vfx-json|none> <image> [depth map PNG]
//! showcase brand <out dir> <WxH> <intro-json|none> <outro-json|none> <ramp:true|false> <image>...
//! ```
//! `brand` takes the video's music from the file `SHOWCASE_MUSIC` names, when set, and caches
//! outro cards in the store (`brand-cache/`) with `SHOWCASE_CARD_CACHE=1`.
//! `<WxH>` is 1280x720, 720x1280, 1920x1080 or 1080x1920. Template image values may name local
//! files as `file:<path>`; they are served through the own-files path like the images.
#![expect(clippy::print_stdout, reason = "the output is the point")]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use stillreel_camera::depth::{DepthInput, DepthPolarity};
use stillreel_core::catalog::builtin_templates;
use stillreel_core::types::{TemplateSlot, TemplateValue};
use stillreel_core::{CameraMotion, Engine, Orientation, Resolution, Vfx};
use stillreel_render::NoObserver;
use stillreel_render::store::storage::Storage;
use stillreel_render::{
    AheadSound, BrandJob, BrandMusic, BrandSlot, ClipRequest, FetchConfig, Fetcher, LocalStorage,
    OwnFiles, RenderConfig, Renderer, VideoJob, vfx_stage,
};

#[derive(Debug, Default)]
struct Files(Mutex<Vec<PathBuf>>);

impl Files {
    /// A URL the fetcher reads from the local `path`.
    fn url(&self, path: PathBuf) -> String {
        let mut files = self.0.lock().unwrap_or_else(|e| e.into_inner());
        files.push(path);
        format!("http://showcase.invalid/f/{}", files.len() - 1)
    }
}

impl OwnFiles for Files {
    fn local_file(&self, url_path: &str) -> Option<PathBuf> {
        let index: usize = url_path.strip_prefix("/f/")?.parse().ok()?;
        self.0.lock().ok()?.get(index).cloned()
    }
}

fn frame(s: &str) -> Result<(Orientation, Resolution), String> {
    Ok(match s {
        "1280x720" => (Orientation::Landscape, Resolution::P720),
        "720x1280" => (Orientation::Portrait, Resolution::P720),
        "1920x1080" => (Orientation::Landscape, Resolution::P1080),
        "1080x1920" => (Orientation::Portrait, Resolution::P1080),
        _ => return Err(format!("unknown frame {s}")),
    })
}

fn slot(json: &str, files: &Files) -> Result<Option<BrandSlot>, Box<dyn std::error::Error>> {
    if json == "none" {
        return Ok(None);
    }
    let mut slot: TemplateSlot = serde_json::from_str(json)?;
    for value in slot.config.values_mut() {
        if let TemplateValue::Image { url } = value
            && let Some(path) = url.strip_prefix("file:")
        {
            *url = files.url(PathBuf::from(path));
        }
    }
    Ok(Some(
        BrandSlot::resolve(&slot, builtin_templates()).ok_or("unknown template")?,
    ))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let files = Arc::new(Files::default());
    let (mode, out, size, rest) = match args.as_slice() {
        [mode, out, size, rest @ ..] => (mode.as_str(), PathBuf::from(out), size, rest),
        _ => return Err("usage: see the file's doc comment".into()),
    };
    let (orientation, resolution) = frame(size)?;
    let fetch = FetchConfig {
        public_url: Some("http://showcase.invalid/".parse()?),
        ..FetchConfig::default()
    };
    let fetcher = Fetcher::new(fetch, Some(Arc::clone(&files) as Arc<dyn OwnFiles>));
    let storage = Arc::new(LocalStorage::new(out.join("store"), "/files"));
    let mut config = RenderConfig::default();
    if let Ok(ffmpeg) = std::env::var("STILLREEL_FFMPEG") {
        config.ffmpeg = ffmpeg.into();
    }
    // `SHOWCASE_CARD_CACHE=1`: outro cards are cached in the store, as the service does.
    if std::env::var("SHOWCASE_CARD_CACHE").is_ok_and(|v| v == "1") {
        config.card_cache = Some("brand-cache".into());
    }
    let renderer = Renderer::new(config, fetcher, Arc::clone(&storage) as Arc<dyn Storage>);
    let store = out.join("store");
    match (mode, rest) {
        ("clip", [motion, vfx, image, depth @ ..]) if depth.len() <= 1 => {
            let motion = CameraMotion::parse(motion).ok_or("unknown motion")?;
            // A depth map (a grey PNG, brighter is nearer) goes into storage beside the photo,
            // as a depth provider's output would.
            let depth = match depth.first() {
                Some(path) => {
                    let key = "showcase/clip/depth-000.png".to_owned();
                    // `put` moves its file in: hand it a copy.
                    std::fs::create_dir_all(&out)?;
                    let copy = out.join("depth-upload.png");
                    std::fs::copy(path, &copy)?;
                    storage.put(&copy, &key)?;
                    Some(DepthInput {
                        key,
                        polarity: DepthPolarity::BrighterIsNearer,
                    })
                }
                None => None,
            };
            let effect = if vfx == "none" {
                None
            } else {
                Some(vfx_stage(&serde_json::from_str::<Vfx>(vfx)?))
            };
            let job = VideoJob {
                pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
                branded_intro: false,
                branded_sound: None,
                key_prefix: "showcase/clip".into(),
                clips: vec![ClipRequest {
                    depth,
                    image_url: files.url(PathBuf::from(image)),
                    camera_motion: motion,
                    effect,
                }],
                orientation,
                resolution,
                engine: Engine::V25,
                audio_url: None,
                transition: stillreel_core::Transition::Cut,
            };
            let work = out.join("work-clip");
            let _ = std::fs::remove_dir_all(&work);
            let started = Instant::now();
            let video = renderer.render_video(&job, &work, &NoObserver).await?;
            let wall = started.elapsed().as_secs_f64();
            let _ = std::fs::remove_dir_all(&work);
            println!(
                "{{\"wall\":{wall:.3},\"clip\":\"{}\"}}",
                store.join(&video.clips[0].key).display()
            );
        }
        ("brand", [intro, outro, ramp, images @ ..]) if !images.is_empty() => {
            // `SHOWCASE_MUSIC=<file>`: the video's music, under the main and the branded video.
            let music = std::env::var("SHOWCASE_MUSIC")
                .ok()
                .map(|path| files.url(PathBuf::from(path)));
            // The ramp is visible only over clips whose camera keeps moving through their ends.
            let pace = if ramp == "true" {
                stillreel_camera::geometry::clip_plan::Pace::Through
            } else {
                stillreel_camera::geometry::clip_plan::Pace::Engine
            };
            // The branded job is known before the main render: its stitch makes the branded
            // sound ahead, as the service's does.
            let mut brand = BrandJob {
                key_prefix: "showcase/video".into(),
                main_key: String::new(),
                clip_frames: BrandJob::standard_clips(images.len()),
                orientation,
                resolution,
                intro: slot(intro, &files)?,
                outro: slot(outro, &files)?,
                speed_ramp: ramp == "true",
                clip_pace: pace,
                music: music.clone().map(BrandMusic::Url),
                sound_key: Some("showcase/video/branded-sound.m4a".into()),
            };
            let job = VideoJob {
                pace,
                // The branded copy starts copying where the intro ends (and, with the ramp, between the
                // spans around the cuts: clips paced `Through` are keyed there).
                branded_intro: intro != "none",
                branded_sound: brand.sound_key.clone().map(|key| AheadSound {
                    sound: brand.sound(),
                    key,
                }),
                key_prefix: "showcase/video".into(),
                clips: images
                    .iter()
                    .map(|i| ClipRequest {
                        depth: None,
                        image_url: files.url(PathBuf::from(i)),
                        camera_motion: CameraMotion::Auto,
                        effect: None,
                    })
                    .collect(),
                orientation,
                resolution,
                engine: Engine::V25,
                audio_url: music.clone(),
                transition: stillreel_core::Transition::Cut,
            };
            let work = out.join("work-main");
            let _ = std::fs::remove_dir_all(&work);
            let started = Instant::now();
            let video = renderer.render_video(&job, &work, &NoObserver).await?;
            let main_wall = started.elapsed().as_secs_f64();
            brand.main_key = video.key.clone();
            let bwork = out.join("work-brand");
            let _ = std::fs::remove_dir_all(&bwork);
            let started = Instant::now();
            let branded = renderer.render_branded(&brand, &bwork, &NoObserver).await?;
            let brand_wall = started.elapsed().as_secs_f64();
            let _ = std::fs::remove_dir_all(&work);
            let _ = std::fs::remove_dir_all(&bwork);
            println!(
                "{{\"main_wall\":{main_wall:.3},\"brand_wall\":{brand_wall:.3},\"speed_ramp\":{},\"main\":\"{}\",\"branded\":\"{}\",\"branded_seconds\":{}}}",
                branded.speed_ramp,
                store.join(&video.key).display(),
                store.join(&branded.video.key).display(),
                branded.video.seconds
            );
        }
        _ => return Err("usage: see the file's doc comment".into()),
    }
    Ok(())
}
