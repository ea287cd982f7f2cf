//! Benchmark driver: renders still images into a push-in video through the real pipeline
//! (fetch via the server's own-files path, clips, stitch, storage), then combines 10 stored
//! clips. Prints one JSON object. Used by `bench/render.sh`.
//!
//! `render_bench <out dir> <720p|1080p> <image>...` (env `STILLREEL_FFMPEG` for the binary,
//! `BENCH_TRANSITION` for how the clips meet: `cut`, the default, `crossfade` or `fade-black`;
//! the combine uses it too; `BENCH_COMBINE_ALSO` for a second combine joined another way).
//!
//! `render_bench clip <out dir> <720p|1080p> <image> <motion> <ours|reference>`: one clip's
//! step alone. `ours` times `Renderer::render_clip` (canvas, frames drawn in Rust and piped to
//! the encoder, ffprobe check, store) after an untimed prepare; `reference` times only the
//! previous renderer's single ffmpeg run (`command::reference_clip_command`, `perspective`) on
//! the same stored input. Prints `{"clip_wall":..,"clip":"<mp4>"}`. Env `BENCH_FIT` frames the
//! photo (`auto`, the default, `cover`, `smart` or `contain-blur`) and `BENCH_CAPTION` draws a
//! `label` caption with that text (`bench/look.sh`).
//!
//! `render_bench combine <out dir> <720p|1080p> <clip.mp4>...`: the combine alone. The clips
//! (a full run's stored clips, with their thumbnails beside them) are stored again, untimed,
//! and 10 of them (repeated) combined as in the full run. Prints `{"combine_wall":..}`.
//!
//! `render_bench canvas <720p|1080p> <jpg|png image> <runs>`: a clip's canvas made in process
//! (`still_canvas`) and by the ffmpeg canvas run it replaced (`command::canvas_command`), each
//! `runs` times, alternately. Prints the medians in seconds,
//! `{"in_process":..,"ffmpeg":..}`.
#![expect(clippy::print_stdout, reason = "the output is the point")]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use stillreel_core::{CameraMotion, Engine, Orientation, Resolution, Transition};
use stillreel_render::ffmpeg::command::StillInput;
use stillreel_render::ffmpeg::runner::{Runner, Step};
use stillreel_render::store::storage::still_key;
use stillreel_render::{
    ClipJob, ClipRequest, CombineJob, FetchConfig, Fetcher, LocalStorage, NoObserver, OwnFiles,
    PrepareJob, RenderConfig, Renderer, Storage, VideoJob,
};

#[derive(Debug)]
struct Images(Vec<PathBuf>);

impl OwnFiles for Images {
    fn local_file(&self, url_path: &str) -> Option<PathBuf> {
        let index: usize = url_path.strip_prefix("/bench/")?.parse().ok()?;
        self.0.get(index).cloned()
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("clip") {
        return clip(&args[1..]).await;
    }
    if args.first().map(String::as_str) == Some("combine") {
        return combine(&args[1..]).await;
    }
    if args.first().map(String::as_str) == Some("canvas") {
        return canvas(&args[1..]);
    }
    let [out, resolution, images @ ..] = args.as_slice() else {
        return Err("usage: render_bench <out dir> <720p|1080p> <image>...".into());
    };
    let resolution = Resolution::parse(resolution).ok_or("resolution is 720p or 1080p")?;
    let out = PathBuf::from(out);
    let images: Vec<PathBuf> = images.iter().map(PathBuf::from).collect();
    let count = images.len();
    let fetch = FetchConfig {
        public_url: Some("http://bench.invalid/".parse()?),
        ..FetchConfig::default()
    };
    let fetcher = Fetcher::new(fetch, Some(Arc::new(Images(images))));
    let storage = Arc::new(LocalStorage::new(out.join("store"), "/files"));
    let mut config = RenderConfig::default();
    if let Ok(ffmpeg) = std::env::var("STILLREEL_FFMPEG") {
        config.ffmpeg = ffmpeg.into();
    }
    if let Some(n) = std::env::var("BENCH_CLIP_PARALLELISM")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        config.clip_parallelism = n;
    }
    let transition = match std::env::var("BENCH_TRANSITION") {
        Ok(name) => {
            Transition::parse(&name).ok_or("BENCH_TRANSITION is cut, crossfade or fade-black")?
        }
        Err(_) => Transition::Cut,
    };
    let renderer = Renderer::new(config, fetcher, storage);
    let job = VideoJob {
        pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
        branded_intro: false,
        branded_sound: None,
        key_prefix: format!("bench/{resolution}"),
        clips: (0..count)
            .map(|i| ClipRequest {
                depth: None,
                image_url: format!("http://bench.invalid/bench/{i}"),
                camera_motion: CameraMotion::PushIn,
                effect: None,
            })
            .collect(),
        orientation: Orientation::Landscape,
        resolution,
        engine: Engine::V25,
        audio_url: None,
        transition,
    };
    let work = out.join(format!("work-{resolution}"));
    let _ = std::fs::remove_dir_all(&work);
    let started = Instant::now();
    let video = renderer.render_video(&job, &work, &NoObserver).await?;
    let render_secs = started.elapsed().as_secs_f64();

    // Combine 10 stored clips (the rendered ones, repeated).
    let keys: Vec<String> = (0..10)
        .map(|i| video.clips[i % video.clips.len()].key.clone())
        .collect();
    let combine = CombineJob {
        key_prefix: format!("bench/{resolution}-combined"),
        clip_keys: keys,
        orientation: Orientation::Landscape,
        resolution,
        audio_url: None,
        transition,
    };
    let cwork = out.join(format!("work-{resolution}-combine"));
    let _ = std::fs::remove_dir_all(&cwork);
    let started = Instant::now();
    let combined = renderer.combine(&combine, &cwork, &NoObserver).await?;
    let combine_secs = started.elapsed().as_secs_f64();
    // `BENCH_COMBINE_ALSO=<transition>`: the same stored clips combined once more, joined that
    // way (e.g. a crossfade of clips rendered for a cut video, which lack its keyframes).
    let mut also = String::new();
    if let Some(name) = std::env::var("BENCH_COMBINE_ALSO")
        .ok()
        .filter(|n| !n.is_empty())
    {
        let transition = Transition::parse(&name).ok_or("BENCH_COMBINE_ALSO is a transition")?;
        let job = CombineJob {
            key_prefix: format!("bench/{resolution}-combined-also"),
            transition,
            ..combine.clone()
        };
        let awork = out.join(format!("work-{resolution}-combine-also"));
        let _ = std::fs::remove_dir_all(&awork);
        let started = Instant::now();
        renderer.combine(&job, &awork, &NoObserver).await?;
        also = format!(
            ",\"combine_also_wall\":{:.3}",
            started.elapsed().as_secs_f64()
        );
    }
    println!(
        "{{\"resolution\":\"{resolution}\",\"clips\":{count},\"video_seconds\":{},\"render_wall\":{render_secs:.3},\"combine_video_seconds\":{},\"combine_wall\":{combine_secs:.3}{also},\"video\":\"{}\"}}",
        video.seconds,
        combined.seconds,
        out.join("store").join(&video.key).display()
    );
    Ok(())
}

/// `combine <out dir> <720p|1080p> <clip.mp4>...` (see the module doc).
async fn combine(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let [out, resolution, clips @ ..] = args else {
        return Err("usage: render_bench combine <out dir> <720p|1080p> <clip.mp4>...".into());
    };
    if clips.is_empty() {
        return Err("render_bench combine: no clips".into());
    }
    let resolution = Resolution::parse(resolution).ok_or("resolution is 720p or 1080p")?;
    let out = PathBuf::from(out);
    let storage = Arc::new(LocalStorage::new(out.join("store"), "/files"));
    let work = out.join(format!("work-{resolution}-combine-only"));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;
    let mut stored = Vec::new();
    for (i, clip) in clips.iter().enumerate() {
        let copy = work.join(format!("in-{i}.mp4"));
        std::fs::copy(clip, &copy)?;
        let key = format!("bench/{resolution}-combine-input/clip-{i:03}.mp4");
        storage.put(&copy, &key)?;
        // Its thumbnail too, as a rendered clip has one: the video's poster is its copy.
        let thumbnail = std::path::Path::new(clip).with_extension("jpg");
        if thumbnail.is_file() {
            let copy = work.join(format!("in-{i}.jpg"));
            std::fs::copy(&thumbnail, &copy)?;
            storage.put(&copy, &still_key(&key))?;
        }
        stored.push(key);
    }
    let mut config = RenderConfig::default();
    if let Ok(ffmpeg) = std::env::var("STILLREEL_FFMPEG") {
        config.ffmpeg = ffmpeg.into();
    }
    let fetcher = Fetcher::new(FetchConfig::default(), None);
    let renderer = Renderer::new(config, fetcher, storage);
    let job = CombineJob {
        key_prefix: format!("bench/{resolution}-combined-only"),
        clip_keys: (0..10).map(|i| stored[i % stored.len()].clone()).collect(),
        orientation: Orientation::Landscape,
        resolution,
        audio_url: None,
        transition: Transition::Cut,
    };
    let cwork = work.join("combine");
    let started = Instant::now();
    renderer.combine(&job, &cwork, &NoObserver).await?;
    println!(
        "{{\"combine_wall\":{:.3}}}",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `clip <out dir> <720p|1080p> <image> <motion> <ours|reference>` (see the module doc).
async fn clip(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let [out, resolution, image, motion, which] = args else {
        return Err(
            "usage: render_bench clip <out dir> <720p|1080p> <image> <motion> <ours|reference>"
                .into(),
        );
    };
    let resolution = Resolution::parse(resolution).ok_or("resolution is 720p or 1080p")?;
    let camera_motion = CameraMotion::parse(motion).ok_or("unknown motion")?;
    let out = PathBuf::from(out);
    let fetch = FetchConfig {
        public_url: Some("http://bench.invalid/".parse()?),
        ..FetchConfig::default()
    };
    let fetcher = Fetcher::new(fetch, Some(Arc::new(Images(vec![PathBuf::from(image)]))));
    let storage = Arc::new(LocalStorage::new(out.join("store"), "/files"));
    let mut config = RenderConfig::default();
    if let Ok(ffmpeg) = std::env::var("STILLREEL_FFMPEG") {
        config.ffmpeg = ffmpeg.into();
    }
    let renderer = Renderer::new(config.clone(), fetcher, storage);
    let prefix = format!("bench/clip-{resolution}-{which}");
    let work = out.join(format!("work-clip-{resolution}-{which}"));
    let _ = std::fs::remove_dir_all(&work);
    let prepared = renderer
        .prepare(
            &PrepareJob {
                key_prefix: prefix.clone(),
                images: vec![(0, "http://bench.invalid/bench/0".to_owned())],
                audio_url: None,
            },
            &work,
            &NoObserver,
        )
        .await?;
    let input = prepared.inputs.into_iter().next().ok_or("no input")?;
    let fit = match std::env::var("BENCH_FIT") {
        Ok(name) => stillreel_core::Fit::parse(&name).ok_or("BENCH_FIT: unknown fit")?,
        Err(_) => stillreel_core::Fit::Auto,
    };
    let caption = std::env::var("BENCH_CAPTION").ok().map(|text| {
        stillreel_render::ffmpeg::command::clip_caption::ClipCaption {
            text,
            style: stillreel_core::CaptionStyle::Label,
            plate: stillreel_render::ffmpeg::command::clip_caption::DEFAULT_PLATE.to_owned(),
            at_top: false,
        }
    });
    let job = ClipJob {
        pace: stillreel_camera::geometry::clip_plan::Pace::Engine,
        look: stillreel_render::ClipLook { fit, caption },
        usage: stillreel_render::ClipUse::default(),
        key_prefix: prefix,
        index: 0,
        token: None,
        input: input.clone(),
        camera_motion,
        effect: None,
        orientation: Orientation::Landscape,
        resolution,
        engine: Engine::V25,
        depth: None,
        depth_note: None,
    };
    let started = Instant::now();
    let path = match which.as_str() {
        "ours" => {
            let stored = renderer.render_clip(&job, &work, &NoObserver).await?;
            out.join("store").join(&stored.key)
        }
        "reference" => {
            let plan = stillreel_render::plan::video_plan::clip_plan(job.shape(), &job.picture());
            let still = StillInput {
                path: out.join("store").join(&input.key),
                format: input.format,
                orientation: input.orientation,
            };
            let output = work.join("reference.mp4");
            let cmd = stillreel_render::ffmpeg::reference::reference_clip_command(
                &plan,
                &still,
                None,
                &config.encoding,
                &output,
            );
            let runner = Runner::new(&config.ffmpeg, config.step_time_limit);
            tokio::task::spawn_blocking(move || {
                runner.run(Step::Clip(0), &cmd, &work, &mut |_| {})
            })
            .await??;
            output
        }
        _ => return Err("ours or reference".into()),
    };
    let wall = started.elapsed().as_secs_f64();
    println!(
        "{{\"clip_wall\":{wall:.3},\"clip\":\"{}\"}}",
        path.display()
    );
    Ok(())
}

/// `render_bench canvas`: see the module doc.
fn canvas(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    use stillreel_camera::geometry::clip_plan::{ClipPlan, Motion};
    use stillreel_camera::input::ExifOrientation;
    use stillreel_core::media::MediaFormat;
    let [resolution, image, runs] = args else {
        return Err("usage: render_bench canvas <720p|1080p> <image> <runs>".into());
    };
    let resolution = Resolution::parse(resolution).ok_or("resolution is 720p or 1080p")?;
    let runs: usize = runs.parse()?;
    let format = if image.ends_with(".png") {
        MediaFormat::Png
    } else {
        MediaFormat::Jpeg
    };
    let plan = ClipPlan::new(
        Orientation::Landscape,
        resolution,
        Engine::V25,
        Motion::PushIn,
    );
    let dir = std::env::temp_dir().join(format!("render-bench-canvas-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let still = StillInput {
        path: std::fs::canonicalize(image)?,
        format,
        orientation: ExifOrientation(1),
    };
    let cmd = stillreel_render::ffmpeg::command::canvas_command(
        &plan,
        &still,
        stillreel_render::ffmpeg::command::CanvasFraming::Cover { position: 0.5 },
        "canvas.yuv".as_ref(),
    );
    let runner = Runner::new(
        RenderConfig::default().ffmpeg,
        std::time::Duration::from_secs(60),
    );
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let start = Instant::now();
        let bytes = std::fs::read(&still.path)?;
        let frame = stillreel_camera::input::canvas::canvas_yuv420p(
            &bytes,
            format,
            still.orientation,
            plan.width,
            plan.height,
            std::env::var("BENCH_FIT")
                .ok()
                .and_then(|f| stillreel_core::Fit::parse(&f))
                .unwrap_or(stillreel_core::Fit::Cover),
        )
        .ok_or("not made in process")?
        .frame;
        ours.push(start.elapsed().as_secs_f64());
        std::hint::black_box(frame);
        let start = Instant::now();
        runner.run(Step::Clip(0), &cmd, &dir, &mut |_| {})?;
        std::hint::black_box(std::fs::read(dir.join("canvas.yuv"))?);
        theirs.push(start.elapsed().as_secs_f64());
    }
    std::fs::remove_dir_all(&dir)?;
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        r#"{{"in_process":{:.4},"ffmpeg":{:.4}}}"#,
        median(&mut ours),
        median(&mut theirs)
    );
    Ok(())
}
