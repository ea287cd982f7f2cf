//! Benchmark driver: renders still images into a push-in video through the real pipeline
//! (fetch via the server's own-files path, clips, stitch, storage), then combines 10 stored
//! clips. Prints one JSON object. Used by `bench/render.sh`.
//!
//! `render_bench <out dir> <720p|1080p> <image>...` (env `STILLREEL_FFMPEG` for the binary,
//! `BENCH_TRANSITION` for how the clips meet: `cut`, the default, `crossfade` or `fade-black`;
//! the combine uses it too).
#![expect(clippy::print_stdout, reason = "the output is the point")]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use stillreel_core::{CameraMotion, Engine, Orientation, Resolution, Transition};
use stillreel_render::{
    ClipRequest, CombineJob, FetchConfig, Fetcher, LocalStorage, NoObserver, OwnFiles,
    RenderConfig, Renderer, VideoJob,
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
        key_prefix: format!("bench/{resolution}"),
        clips: (0..count)
            .map(|i| ClipRequest {
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
    println!(
        "{{\"resolution\":\"{resolution}\",\"clips\":{count},\"video_seconds\":{},\"render_wall\":{render_secs:.3},\"combine_video_seconds\":{},\"combine_wall\":{combine_secs:.3},\"video\":\"{}\"}}",
        video.seconds,
        combined.seconds,
        out.join("store").join(&video.key).display()
    );
    Ok(())
}
