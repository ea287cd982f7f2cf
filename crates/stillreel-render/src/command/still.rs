//! JPEG stills of a clip or a video (docs/RENDER.md, "Stills"): a second output split off a
//! clip's own graph, or the first frame of a stored video.

use std::path::Path;

use super::{FfmpegArgs, local_arg, push};

/// Width of the JPEG stills (clip thumbnails, video posters); the height keeps the aspect.
pub const STILL_WIDTH: u32 = 640;

/// Adds a second output to a clip command: frame `frame` of the clip as a JPEG at `output`,
/// split off the same filter graph, so the still costs one JPEG encode and no decode of the
/// clip. `false` (nothing changed) when the command has no `[v]` graph output to split.
pub fn add_still_output(cmd: &mut FfmpegArgs, frame: u32, output: &Path) -> bool {
    let Some(graph_at) = cmd.args.iter().position(|a| a == "-filter_complex") else {
        return false;
    };
    let Some(map_at) = cmd
        .args
        .windows(2)
        .position(|w| w[0] == "-map" && w[1] == "[v]")
    else {
        return false;
    };
    cmd.args[graph_at + 1].push_str(&format!(
        ";[v]split=2[vclip][vstill];\
         [vstill]select='eq(n,{frame})',scale={STILL_WIDTH}:-2,format=yuvj420p[still]"
    ));
    cmd.args[map_at + 1] = "[vclip]".to_owned();
    push(
        &mut cmd.args,
        [
            "-map",
            "[still]",
            "-frames:v",
            "1",
            "-c:v",
            "mjpeg",
            "-q:v",
            "3",
            "-f",
            "image2",
            "-update",
            "1",
        ],
    );
    cmd.args.push(local_arg(output));
    true
}

/// The first frame of a stored video as a JPEG still: one frame decoded.
pub fn first_frame_still_command(video: &Path, output: &Path) -> FfmpegArgs {
    let mut cmd = FfmpegArgs::new(1);
    cmd.input("mov", video, &[]);
    let scale = format!("scale={STILL_WIDTH}:-2,format=yuvj420p");
    push(
        &mut cmd.args,
        [
            "-map",
            "0:v:0",
            "-frames:v",
            "1",
            "-vf",
            &scale,
            "-c:v",
            "mjpeg",
            "-q:v",
            "3",
            "-f",
            "image2",
            "-update",
            "1",
        ],
    );
    cmd.args.push(local_arg(output));
    cmd
}
