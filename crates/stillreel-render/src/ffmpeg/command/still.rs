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

#[cfg(test)]
mod tests {
    use super::*;

    fn clip_like() -> FfmpegArgs {
        let mut cmd = FfmpegArgs::new(150);
        cmd.input("png_pipe", Path::new("in.png"), &[]);
        push(
            &mut cmd.args,
            [
                "-filter_complex",
                "[0:v]scale=1280:720,format=yuv420p[v]",
                "-map",
                "[v]",
                "-an",
            ],
        );
        cmd.args.push(local_arg(Path::new("clip.mp4")));
        cmd
    }

    #[test]
    fn the_still_is_split_off_the_clips_own_graph() {
        let mut cmd = clip_like();
        assert!(add_still_output(&mut cmd, 75, Path::new("still.jpg")));
        let graph = &cmd.args[cmd
            .args
            .iter()
            .position(|a| a == "-filter_complex")
            .expect("graph")
            + 1];
        assert!(
            graph.ends_with(";[v]split=2[vclip][vstill];[vstill]select='eq(n,75)',scale=640:-2,format=yuvj420p[still]"),
            "{graph}"
        );
        // The clip keeps its output, now fed by one branch; the JPEG is a second output.
        let clip_at = cmd
            .args
            .iter()
            .position(|a| a == "./clip.mp4")
            .expect("clip output");
        assert_eq!(
            cmd.args[clip_at - 3..clip_at - 1],
            ["-map".to_owned(), "[vclip]".to_owned()]
        );
        assert_eq!(cmd.args.last().map(String::as_str), Some("./still.jpg"));
        assert!(
            cmd.args[clip_at..]
                .windows(2)
                .any(|w| w == ["-frames:v", "1"])
        );
        // Only one input: nothing is decoded twice.
        assert_eq!(cmd.args.iter().filter(|a| *a == "-i").count(), 1);
        assert_eq!(cmd.planned_frames, 150);
    }

    #[test]
    fn a_command_without_a_v_output_is_left_alone() {
        let mut cmd = FfmpegArgs::new(1);
        cmd.args.push("-version".to_owned());
        let before = cmd.clone();
        assert!(!add_still_output(&mut cmd, 0, Path::new("x.jpg")));
        assert_eq!(cmd, before);
        let poster = first_frame_still_command(Path::new("video.mp4"), Path::new("poster.jpg"));
        assert!(poster.args.windows(2).any(|w| w == ["-frames:v", "1"]));
        assert_eq!(poster.args.last().map(String::as_str), Some("./poster.jpg"));
    }
}
