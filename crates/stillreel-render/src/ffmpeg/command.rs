//! ffmpeg commands as data: argument lists built by pure functions and tested as lists.
//!
//! Hardening shared by every command (TOOLCHAIN.md): `-nostdin`; every input is a local file
//! named by us, opened with `-protocol_whitelist file` and its format forced (a playlist named
//! `.png` is then read as a PNG and fails, instead of being followed as HLS); the concat
//! demuxer is used in its default safe mode (never `-safe 0`) with relative names in the work
//! directory. The one other input is the camera's frames on standard input (`pipe:0`, raw
//! yuv420p of a fixed size, only the pipe protocol allowed), written by the render itself.
//!
//! Over 400 lines of non-test code on purpose: every argument list of a clip (canvas, frames on
//! a pipe, provider clip), the stitch and the music sit beside the one set of helpers that
//! applies those rules, so no command is built without them.

use std::path::{Path, PathBuf};

use stillreel_core::Engine;

use crate::effect::{ClipContext, EffectFilter};
use stillreel_camera::geometry::clip_plan::ClipPlan;
use stillreel_camera::input::ExifOrientation;
use stillreel_core::media::MediaFormat;

pub use crate::ffmpeg::concat::{ConcatEntry, UnsafeConcatName, concat_list, concat_list_from};

/// x264 settings shared by every clip, so clips join with `-c copy`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoding {
    pub preset: String,
    pub crf: u8,
}

impl Default for Encoding {
    fn default() -> Self {
        // veryfast: about 3x real time at 720p on 2 cores (TOOLCHAIN.md); crf 20 keeps fine
        // texture (brick, foliage) of listing photos.
        Encoding {
            preset: "veryfast".to_owned(),
            crf: 20,
        }
    }
}

/// Audio sample rate of every render (docs/API-DESIGN.md#rendering).
pub const SAMPLE_RATE: u32 = 48_000;

mod caption;
pub mod clip_caption;
mod still;
pub use caption::{CAPTION_TEXT, add_caption, append_to_graph, caption_filter, needs_caption};
pub use still::{STILL_WIDTH, add_still_output, first_frame_still_command};

/// One ffmpeg invocation: its arguments (without the program) and the frames it will output,
/// against which its progress is measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FfmpegArgs {
    pub args: Vec<String>,
    pub planned_frames: u32,
}

impl FfmpegArgs {
    pub(crate) fn new(planned_frames: u32) -> Self {
        let mut args = Vec::new();
        // `-filter_complex_threads 1`: every run encodes with x264, which already keeps the
        // cores busy; slice threads in the graph's filters (blend, lut, gblur, overlay…) only
        // fought it for them, handing each frame's slices back and forth. One graph thread
        // gives the same bytes and took an effect clip from 2.3 s to 1.85 s at 720p, a
        // branded head from 2.4 s to 2.05 s (docs/BENCHMARKS.md).
        push(
            &mut args,
            [
                "-nostdin",
                "-hide_banner",
                "-y",
                "-stats_period",
                "0.1",
                "-filter_complex_threads",
                "1",
            ],
        );
        FfmpegArgs {
            args,
            planned_frames,
        }
    }

    /// Adds a local input with its format forced and only the file protocol allowed.
    pub(crate) fn input(&mut self, format: &str, path: &Path, pre: &[&str]) {
        push(
            &mut self.args,
            ["-protocol_whitelist", "file", "-f", format],
        );
        push(&mut self.args, pre.iter().copied());
        self.args.push("-i".to_owned());
        self.args.push(local_arg(path));
    }
}

pub(crate) fn push<'a>(args: &mut Vec<String>, items: impl IntoIterator<Item = &'a str>) {
    args.extend(items.into_iter().map(str::to_owned));
}

/// A path as ffmpeg must see it: a plain relative or absolute file path, never something a
/// protocol prefix (`http:`, `concat:`) or an option (`-`) could be read into.
pub(crate) fn local_arg(path: &Path) -> String {
    let text = path.to_string_lossy();
    if path.is_absolute() || text.starts_with("./") {
        text.into_owned()
    } else {
        format!("./{text}")
    }
}

/// The still that a clip is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StillInput {
    pub path: PathBuf,
    pub format: MediaFormat,
    pub orientation: ExifOrientation,
}

/// How the ffmpeg canvas run frames the photo: decided by the camera's clip
/// (`stillreel_camera::clip`), as the in-process canvas is.
pub use stillreel_camera::clip::CanvasFraming;

/// The canvas of a clip: the still decoded once, turned by its EXIF tag, framed (covering the
/// frame, or contained over its blurred fill) at full quality (lanczos) and converted to
/// yuv420p, written as one raw frame. The camera's frames are drawn from it in Rust
/// ([`stillreel_camera::draw::warp`]).
pub fn canvas_graph(
    plan: &ClipPlan,
    orientation: ExifOrientation,
    framing: CanvasFraming,
) -> String {
    let (w, h) = (plan.width, plan.height);
    let mut chain = turned_still(orientation);
    match framing {
        // The middle, as `crop` centres it by default (the in-process canvas matches this).
        CanvasFraming::Cover { position } if (position - 0.5).abs() < 1e-9 => {
            chain.push_str(&format!(
                "scale={w}:{h}:force_original_aspect_ratio=increase:flags=lanczos,crop={w}:{h},\
                 setsar=1,format=yuv420p[v]"
            ));
        }
        CanvasFraming::Cover { position } => {
            let p = position.clamp(0.0, 1.0);
            chain.push_str(&format!(
                "scale={w}:{h}:force_original_aspect_ratio=increase:flags=lanczos,\
                 crop={w}:{h}:trunc({p}*(in_w-{w})/2)*2:trunc({p}*(in_h-{h})/2)*2,\
                 setsar=1,format=yuv420p[v]"
            ));
        }
        CanvasFraming::ContainBlur => {
            let (sw, sh) = ((w / 8).max(2), (h / 8).max(2));
            let radius = (sw / 40).max(1);
            let dim = stillreel_camera::input::framing::FILL_DIM;
            // Chroma scales with the dimmed light and the desaturation (as the in-process fill).
            let sat = stillreel_camera::input::framing::FILL_SATURATION * dim;
            chain.push_str(&format!(
                "split[fill_in][photo];\
                 [fill_in]scale={sw}:{sh}:force_original_aspect_ratio=increase:flags=lanczos,\
                 crop={sw}:{sh},format=yuv444p,boxblur={radius}:3,\
                 lutyuv=y=16+(val-16)*{dim}:u=128+(val-128)*{sat}:v=128+(val-128)*{sat},\
                 scale={w}:{h}:flags=bilinear,setsar=1[fill];\
                 [photo]scale={w}:{h}:force_original_aspect_ratio=decrease:force_divisible_by=2:\
                 flags=lanczos,setsar=1[contained];\
                 [fill][contained]overlay=x=trunc((W-w)/4)*2:y=trunc((H-h)/4)*2,format=yuv420p[v]"
            ));
        }
    }
    chain
}

/// Writes the upright still, scaled to fit a `side` × `side` box, to `output` as a binary PPM
/// (its header carries the size): what `auto` and `smart` framing read the photo's shape and
/// content from when ffmpeg makes the canvas.
pub fn thumbnail_command(
    plan: &ClipPlan,
    still: &StillInput,
    side: u32,
    output: &Path,
) -> FfmpegArgs {
    let mut graph = turned_still(still.orientation);
    graph.push_str(&format!(
        "scale={side}:{side}:force_original_aspect_ratio=decrease:flags=area,setsar=1,\
         format=rgb24[v]"
    ));
    one_frame_command(
        plan,
        still,
        &graph,
        &["-f", "image2", "-c:v", "ppm"],
        output,
    )
}

/// The start of a graph over the still (input 0): `[0:v]` and its EXIF turn, if any.
fn turned_still(orientation: ExifOrientation) -> String {
    let mut chain = String::from("[0:v]");
    if let Some(turn) = orientation.filter() {
        chain.push_str(turn);
        chain.push(',');
    }
    chain
}

/// One frame of `still` through `graph` (ending in `[v]`), written to `output` as `format`
/// (the muxer's and codec's options).
fn one_frame_command(
    plan: &ClipPlan,
    still: &StillInput,
    graph: &str,
    format: &[&str],
    output: &Path,
) -> FfmpegArgs {
    let mut cmd = FfmpegArgs::new(1);
    still_input(&mut cmd, plan, still);
    push(
        &mut cmd.args,
        [
            "-filter_complex",
            graph,
            "-map",
            "[v]",
            "-an",
            "-frames:v",
            "1",
        ],
    );
    push(&mut cmd.args, format.iter().copied());
    cmd.args.push(local_arg(output));
    cmd
}

/// Writes the canvas of `still` (see [`canvas_graph`]) to `output` as raw yuv420p.
pub fn canvas_command(
    plan: &ClipPlan,
    still: &StillInput,
    framing: CanvasFraming,
    output: &Path,
) -> FfmpegArgs {
    let graph = canvas_graph(plan, still.orientation, framing);
    one_frame_command(
        plan,
        still,
        &graph,
        &["-f", "rawvideo", "-pix_fmt", "yuv420p"],
        output,
    )
}

/// The still as input 0: `-noautorotate`, because ffmpeg turns JPEGs by their EXIF tag itself
/// and the graph applies the tag explicitly (the same on every ffmpeg version); it must not be
/// turned twice.
pub(crate) fn still_input(cmd: &mut FfmpegArgs, plan: &ClipPlan, still: &StillInput) {
    let fps = plan.fps.to_string();
    cmd.input(
        still.format.ffmpeg_demuxer(),
        &still.path,
        &["-noautorotate", "-framerate", &fps],
    );
}

/// The clip filtergraph (video `[v]` only) over the camera's frames (input 0, yuv420p, from
/// the pipe): the effect, if any, composes after the motion. Clips have no audio track: the
/// stitch mixes the music, or silence, once over the whole video, so no AAC priming gap or
/// padding is left at the joins.
pub fn clip_graph(effect: Option<&EffectFilter>) -> String {
    match effect {
        Some(effect) => format!("[0:v]setsar=1[mv];{};[fx]format=yuv420p[v]", effect.graph),
        None => "[0:v]setsar=1,format=yuv420p[v]".to_owned(),
    }
}

/// Encodes one clip whose frames (raw yuv420p, W×H, in order) arrive on standard input, the
/// camera's frames drawn by [`stillreel_camera::draw::warp`]. Only the pipe protocol is allowed for that input.
pub fn clip_command(
    plan: &ClipPlan,
    effect: Option<&EffectFilter>,
    encoding: &Encoding,
    output: &Path,
) -> FfmpegArgs {
    let mut cmd = FfmpegArgs::new(plan.frames);
    let size = format!("{}x{}", plan.width, plan.height);
    push(
        &mut cmd.args,
        [
            "-protocol_whitelist",
            "pipe",
            "-f",
            "rawvideo",
            "-pix_fmt",
            "yuv420p",
            "-s",
            &size,
            "-framerate",
            &plan.fps.to_string(),
            "-i",
            "pipe:0",
        ],
    );
    if let Some(effect) = effect {
        for input in &effect.inputs {
            let options: Vec<&str> = input.options.iter().map(String::as_str).collect();
            cmd.input(&input.format, &input.path, &options);
        }
    }
    let graph = clip_graph(effect);
    push(
        &mut cmd.args,
        ["-filter_complex", &graph, "-map", "[v]", "-an"],
    );
    push(&mut cmd.args, ["-frames:v", &plan.frames.to_string()]);
    encode_video_args(&mut cmd.args, plan.width, plan.height, plan.fps, encoding);
    push(&mut cmd.args, ["-movflags", "+faststart", "-f", "mp4"]);
    cmd.args.push(local_arg(output));
    cmd
}

/// Makes the clip's encoder put keyframes at `keys` (output frame numbers) besides its GOP's
/// ([`crate::ffmpeg::clip_keys`]): `-force_key_frames` among the first output's options. `false` when
/// there is nothing to add or no encoder to add it to.
pub fn add_keyframes(cmd: &mut FfmpegArgs, keys: &[u32]) -> bool {
    let Some(value) = crate::ffmpeg::clip_keys::force_key_frames_value(keys) else {
        return false;
    };
    let Some(at) = cmd.args.iter().position(|a| a == "-c:v") else {
        return false;
    };
    cmd.args
        .splice(at..at, ["-force_key_frames".to_owned(), value]);
    true
}

/// The clip filtergraph for a clip a provider made (a video, any size and rate): cover-cropped to
/// the frame, resampled to the clip's rate, its last frame held or the rest cut so it lasts
/// exactly the clip's frames. The camera does not move again (the provider's clip is the shot).
pub fn provider_clip_graph(plan: &ClipPlan, effect: Option<&EffectFilter>) -> String {
    let (w, h, fps, frames) = (plan.width, plan.height, plan.fps, plan.frames);
    let chain = format!(
        "[0:v]scale={w}:{h}:force_original_aspect_ratio=increase:flags=lanczos,crop={w}:{h},setsar=1,\
         fps={fps},format=yuv420p,tpad=stop_mode=clone:stop={frames},trim=end_frame={frames},\
         setpts=N/({fps}*TB)"
    );
    match effect {
        Some(effect) => format!("{chain}[mv];{};[fx]format=yuv420p[v]", effect.graph),
        None => format!("{chain},format=yuv420p[v]"),
    }
}

/// Renders a provider's clip (`input`, MP4) into a standard clip, like [`clip_command`].
pub fn provider_clip_command(
    plan: &ClipPlan,
    input: &Path,
    effect: Option<&EffectFilter>,
    encoding: &Encoding,
    output: &Path,
) -> FfmpegArgs {
    let mut cmd = FfmpegArgs::new(plan.frames);
    cmd.input("mov", input, &[]);
    if let Some(effect) = effect {
        for extra in &effect.inputs {
            let options: Vec<&str> = extra.options.iter().map(String::as_str).collect();
            cmd.input(&extra.format, &extra.path, &options);
        }
    }
    let graph = provider_clip_graph(plan, effect);
    push(
        &mut cmd.args,
        ["-filter_complex", &graph, "-map", "[v]", "-an"],
    );
    push(&mut cmd.args, ["-frames:v", &plan.frames.to_string()]);
    encode_video_args(&mut cmd.args, plan.width, plan.height, plan.fps, encoding);
    push(&mut cmd.args, ["-movflags", "+faststart", "-f", "mp4"]);
    cmd.args.push(local_arg(output));
    cmd
}

/// The context an effect stage gets for a clip.
pub fn clip_context(plan: &ClipPlan, index: usize) -> ClipContext {
    ClipContext {
        width: plan.width,
        height: plan.height,
        fps: plan.fps,
        frames: plan.frames,
        engine: plan.engine,
        index,
        input_pad: "mv",
        output_pad: "fx",
        first_extra_input: 1,
    }
}

/// Video encoder settings every clip shares, so `concat -c copy` joins them.
pub(crate) fn encode_video_args(
    args: &mut Vec<String>,
    width: u32,
    height: u32,
    fps: u32,
    encoding: &Encoding,
) {
    let level = if width.max(height) > 1280 {
        "4.1"
    } else {
        "3.1"
    };
    let gop = fps * 2;
    let crf = encoding.crf.to_string();
    let fps = fps.to_string();
    push(
        args,
        [
            "-c:v",
            "libx264",
            "-preset",
            &encoding.preset,
            "-crf",
            &crf,
            "-profile:v",
            "high",
            "-level:v",
            level,
            "-pix_fmt",
            "yuv420p",
            "-r",
            &fps,
            "-g",
            &gop.to_string(),
            "-video_track_timescale",
            "15360",
        ],
    );
}

/// [`encode_video_args`] and the audio settings of a finished video (AAC, 48 kHz stereo).
pub(crate) fn encode_args(
    args: &mut Vec<String>,
    width: u32,
    height: u32,
    fps: u32,
    encoding: &Encoding,
) {
    encode_video_args(args, width, height, fps, encoding);
    let sr = SAMPLE_RATE.to_string();
    push(
        args,
        ["-c:a", "aac", "-b:a", "128k", "-ar", &sr, "-ac", "2"],
    );
}

/// Music for a stitched video.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MusicInput {
    pub path: PathBuf,
    pub format: MediaFormat,
}

/// The music chain: looped (by the demuxer) and trimmed to the video, EBU R128 loudness
/// normalized, faded out over the last second, resampled to 48 kHz stereo.
pub fn music_graph(seconds: f64) -> String {
    music_chain("1:a", seconds, (seconds - 1.0).max(0.0), 1.0, "a")
}

/// The music chain from input pad `input` to `output`: trimmed to `seconds`, loudness
/// normalized, faded out over `fade` seconds from `fade_start` (the branded video fades it with
/// its outro card).
pub fn music_chain(input: &str, seconds: f64, fade_start: f64, fade: f64, output: &str) -> String {
    format!(
        "[{input}]atrim=duration={seconds:.3},asetpts=N/SR/TB,loudnorm=I=-16:TP=-1.5:LRA=11,\
         aresample={SAMPLE_RATE},aformat=sample_fmts=fltp:channel_layouts=stereo,\
         afade=t=out:st={fade_start:.3}:d={fade}[{output}]"
    )
}

/// Joins clips (`list` is a concat list in the work directory) into `output` without
/// re-encoding video. Only the clips' video is read (older clips carry a silent track, newer
/// ones none); the audio is made here once for the whole video: `music`, or silence. One AAC
/// encode over the whole length leaves no priming gap at the joins.
pub fn stitch_command(
    list: &Path,
    total_frames: u32,
    fps: u32,
    music: Option<&MusicInput>,
    output: &Path,
) -> FfmpegArgs {
    let mut cmd = FfmpegArgs::new(total_frames);
    cmd.input("concat", list, &[]);
    let seconds = f64::from(total_frames) / f64::from(fps);
    let graph = match music {
        None => {
            let samples = (f64::from(SAMPLE_RATE) * seconds).round() as u64;
            format!("anullsrc=r={SAMPLE_RATE}:cl=stereo,atrim=end_sample={samples}[a]")
        }
        Some(music) => {
            cmd.input(
                music.format.ffmpeg_demuxer(),
                &music.path,
                &["-stream_loop", "-1"],
            );
            music_graph(seconds)
        }
    };
    let sr = SAMPLE_RATE.to_string();
    let bitrate = if music.is_some() { "160k" } else { "128k" };
    push(
        &mut cmd.args,
        [
            "-filter_complex",
            &graph,
            "-map",
            "0:v",
            "-map",
            "[a]",
            "-c:v",
            "copy",
            "-c:a",
            "aac",
            "-b:a",
            bitrate,
            "-ar",
            &sr,
            "-ac",
            "2",
            "-t",
            &format!("{seconds:.3}"),
            "-movflags",
            "+faststart",
            "-f",
            "mp4",
        ],
    );
    cmd.args.push(local_arg(output));
    cmd
}

/// Whether an engine eases its moves (for documentation and records).
pub const fn eases(engine: Engine) -> bool {
    matches!(engine, Engine::V25)
}

#[cfg(test)]
mod tests {
    use stillreel_core::{Orientation, Resolution};

    use super::*;
    use crate::effect::EffectInput;
    use stillreel_camera::geometry::clip_plan::Motion;

    fn plan() -> ClipPlan {
        ClipPlan::new(
            Orientation::Landscape,
            Resolution::P720,
            Engine::V25,
            Motion::PushIn,
        )
    }

    /// The arguments every command starts with.
    const START: [&str; 7] = [
        "-nostdin",
        "-hide_banner",
        "-y",
        "-stats_period",
        "0.1",
        "-filter_complex_threads",
        "1",
    ];

    /// Video settings of a 720p clip at the default encoding.
    const VIDEO_720: [&str; 18] = [
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-crf",
        "20",
        "-profile:v",
        "high",
        "-level:v",
        "3.1",
        "-pix_fmt",
        "yuv420p",
        "-r",
        "30",
        "-g",
        "60",
        "-video_track_timescale",
        "15360",
    ];

    fn list(parts: &[&[&str]]) -> Vec<String> {
        parts
            .iter()
            .flat_map(|p| p.iter().map(|s| (*s).to_owned()))
            .collect()
    }

    #[test]
    fn canvas_command_is_this_list() {
        let still = StillInput {
            path: PathBuf::from("input-000.jpg"),
            format: MediaFormat::Jpeg,
            orientation: ExifOrientation(6),
        };
        let middle = CanvasFraming::Cover { position: 0.5 };
        let cmd = canvas_command(&plan(), &still, middle, Path::new("canvas-000.yuv"));
        let graph = canvas_graph(&plan(), ExifOrientation(6), middle);
        assert_eq!(
            cmd.args,
            list(&[
                &START,
                &[
                    "-protocol_whitelist",
                    "file",
                    "-f",
                    "jpeg_pipe",
                    "-noautorotate",
                    "-framerate",
                    "30",
                    "-i",
                    "./input-000.jpg",
                    "-filter_complex",
                    &graph,
                    "-map",
                    "[v]",
                    "-an",
                    "-frames:v",
                    "1",
                    "-f",
                    "rawvideo",
                    "-pix_fmt",
                    "yuv420p",
                    "./canvas-000.yuv",
                ],
            ])
        );
        assert_eq!(cmd.planned_frames, 1);
        assert_eq!(
            graph,
            "[0:v]transpose=1,scale=1280:720:force_original_aspect_ratio=increase:flags=lanczos,\
             crop=1280:720,setsar=1,format=yuv420p[v]"
        );
    }

    #[test]
    fn clip_command_is_this_list() {
        let cmd = clip_command(
            &plan(),
            None,
            &Encoding::default(),
            Path::new("render-000.mp4"),
        );
        assert_eq!(
            cmd.args,
            list(&[
                &START,
                &[
                    "-protocol_whitelist",
                    "pipe",
                    "-f",
                    "rawvideo",
                    "-pix_fmt",
                    "yuv420p",
                    "-s",
                    "1280x720",
                    "-framerate",
                    "30",
                    "-i",
                    "pipe:0",
                    "-filter_complex",
                    "[0:v]setsar=1,format=yuv420p[v]",
                    "-map",
                    "[v]",
                    "-an",
                    "-frames:v",
                    "150",
                ],
                &VIDEO_720,
                &["-movflags", "+faststart", "-f", "mp4", "./render-000.mp4"],
            ])
        );
        assert_eq!(cmd.planned_frames, 150);
    }

    #[test]
    fn clip_command_adds_effect_inputs_after_the_frames() {
        let effect = EffectFilter {
            graph: "[mv][1:v]overlay[fx]".to_owned(),
            inputs: vec![EffectInput {
                path: PathBuf::from("layer.png"),
                format: "png_pipe".to_owned(),
                options: Vec::new(),
            }],
            masks: None,
        };
        let cmd = clip_command(
            &plan(),
            Some(&effect),
            &Encoding::default(),
            Path::new("out.mp4"),
        );
        let graph = clip_graph(Some(&effect));
        assert_eq!(
            cmd.args[18..28],
            list(&[&[
                "pipe:0",
                "-protocol_whitelist",
                "file",
                "-f",
                "png_pipe",
                "-i",
                "./layer.png",
                "-filter_complex",
                &graph,
                "-map",
            ]])[..]
        );
        assert_eq!(
            graph,
            "[0:v]setsar=1[mv];[mv][1:v]overlay[fx];[fx]format=yuv420p[v]"
        );
    }

    #[test]
    fn provider_clip_command_is_this_list() {
        let cmd = provider_clip_command(
            &plan(),
            Path::new("provider-002.mp4"),
            None,
            &Encoding::default(),
            Path::new("render-002.mp4"),
        );
        let graph = provider_clip_graph(&plan(), None);
        assert_eq!(
            cmd.args,
            list(&[
                &START,
                &[
                    "-protocol_whitelist",
                    "file",
                    "-f",
                    "mov",
                    "-i",
                    "./provider-002.mp4",
                    "-filter_complex",
                    &graph,
                    "-map",
                    "[v]",
                    "-an",
                    "-frames:v",
                    "150",
                ],
                &VIDEO_720,
                &["-movflags", "+faststart", "-f", "mp4", "./render-002.mp4"],
            ])
        );
        assert!(graph.contains("tpad=stop_mode=clone:stop=150,trim=end_frame=150"));
    }

    #[test]
    fn a_1080p_clip_uses_level_4_1() {
        let plan = ClipPlan::new(
            Orientation::Portrait,
            Resolution::P1080,
            Engine::V24,
            Motion::OrbitLeft,
        );
        let mut args = Vec::new();
        encode_video_args(
            &mut args,
            plan.width,
            plan.height,
            plan.fps,
            &Encoding::default(),
        );
        let level = args.iter().position(|a| a == "-level:v").expect("level");
        assert_eq!(args[level + 1], "4.1");
    }

    #[test]
    fn stitch_command_with_silence_is_this_list() {
        let cmd = stitch_command(
            Path::new("clips.ffconcat"),
            450,
            30,
            None,
            Path::new("video.mp4"),
        );
        assert_eq!(
            cmd.args,
            list(&[
                &START,
                &[
                    "-protocol_whitelist",
                    "file",
                    "-f",
                    "concat",
                    "-i",
                    "./clips.ffconcat",
                    "-filter_complex",
                    "anullsrc=r=48000:cl=stereo,atrim=end_sample=720000[a]",
                    "-map",
                    "0:v",
                    "-map",
                    "[a]",
                    "-c:v",
                    "copy",
                    "-c:a",
                    "aac",
                    "-b:a",
                    "128k",
                    "-ar",
                    "48000",
                    "-ac",
                    "2",
                    "-t",
                    "15.000",
                    "-movflags",
                    "+faststart",
                    "-f",
                    "mp4",
                    "./video.mp4",
                ],
            ])
        );
        assert_eq!(cmd.planned_frames, 450);
        assert!(
            !cmd.args.iter().any(|a| a == "-safe"),
            "concat stays in safe mode"
        );
    }

    #[test]
    fn stitch_command_with_music_loops_it_and_mixes_it_once() {
        let music = MusicInput {
            path: PathBuf::from("music.m4a"),
            format: MediaFormat::M4a,
        };
        let cmd = stitch_command(
            Path::new("clips.ffconcat"),
            300,
            30,
            Some(&music),
            Path::new("video.mp4"),
        );
        let graph = music_graph(10.0);
        assert_eq!(
            cmd.args,
            list(&[
                &START,
                &[
                    "-protocol_whitelist",
                    "file",
                    "-f",
                    "concat",
                    "-i",
                    "./clips.ffconcat",
                    "-protocol_whitelist",
                    "file",
                    "-f",
                    "mov",
                    "-stream_loop",
                    "-1",
                    "-i",
                    "./music.m4a",
                    "-filter_complex",
                    &graph,
                    "-map",
                    "0:v",
                    "-map",
                    "[a]",
                    "-c:v",
                    "copy",
                    "-c:a",
                    "aac",
                    "-b:a",
                    "160k",
                    "-ar",
                    "48000",
                    "-ac",
                    "2",
                    "-t",
                    "10.000",
                    "-movflags",
                    "+faststart",
                    "-f",
                    "mp4",
                    "./video.mp4",
                ],
            ])
        );
    }

    #[test]
    fn music_graph_trims_normalizes_and_fades_the_last_second() {
        assert_eq!(
            music_graph(15.0),
            "[1:a]atrim=duration=15.000,asetpts=N/SR/TB,loudnorm=I=-16:TP=-1.5:LRA=11,\
             aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,\
             afade=t=out:st=14.000:d=1[a]"
        );
        assert!(music_graph(0.5).contains("afade=t=out:st=0.000:d=1"));
    }

    #[test]
    fn concat_list_names_files_in_the_work_dir_only() {
        let names = ["part-000.mp4".to_owned(), "part-001.mp4".to_owned()];
        assert_eq!(
            concat_list(&names),
            Ok("ffconcat version 1.0\nfile 'part-000.mp4'\nfile 'part-001.mp4'\n".to_owned())
        );
        assert_eq!(concat_list(&[]), Ok("ffconcat version 1.0\n".to_owned()));
        for bad in [
            "../x.mp4",
            ".hidden.mp4",
            "a/b.mp4",
            "it's.mp4",
            "",
            "x.mp4\nfile y",
        ] {
            assert_eq!(
                concat_list(&[bad.to_owned()]),
                Err(UnsafeConcatName(bad.to_owned())),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn paths_are_never_read_as_protocols_or_options() {
        assert_eq!(local_arg(Path::new("http:x.png")), "./http:x.png");
        assert_eq!(local_arg(Path::new("-i")), "./-i");
        assert_eq!(local_arg(Path::new("./a.mp4")), "./a.mp4");
        assert_eq!(local_arg(Path::new("/tmp/a.mp4")), "/tmp/a.mp4");
    }
}
