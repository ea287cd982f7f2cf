//! The previous renderer's clip: the camera's motion drawn by ffmpeg's `perspective` with
//! per-frame expressions (one thread, its sampling map recomputed every frame), in one ffmpeg
//! run. Not used to render any more; kept as the reference the Rust frames ([`stillreel_camera::draw::warp`])
//! are compared against (`tests/camera.rs`, `bench/render.sh`).
//!
//! `perspective` numbers its input frames from 1, so this graph shows the plan's frame `n + 1`
//! as frame `n` (and the plan's last frame twice); the Rust camera shows frame `n` as the plan
//! says.

use std::path::Path;

use crate::effect::EffectFilter;
use crate::ffmpeg::command::{
    Encoding, FfmpegArgs, StillInput, encode_video_args, local_arg, push, still_input,
};
use stillreel_camera::geometry::clip_plan::ClipPlan;
use stillreel_camera::input::ExifOrientation;

/// The previous renderer's clip graph (see the module doc).
pub fn reference_clip_graph(
    plan: &ClipPlan,
    orientation: ExifOrientation,
    effect: Option<&EffectFilter>,
) -> String {
    let (w, h, fps, frames) = (plan.width, plan.height, plan.fps, plan.frames);
    let mut chain = String::from("[0:v]");
    if let Some(turn) = orientation.filter() {
        chain.push_str(turn);
        chain.push(',');
    }
    chain.push_str(&format!(
        "scale={w}:{h}:force_original_aspect_ratio=increase:flags=lanczos,crop={w}:{h},setsar=1,\
         format=yuv420p,loop=loop={}:size=1:start=0,setpts=N/({fps}*TB),",
        frames.saturating_sub(1)
    ));
    let p = plan.progress_expr();
    let names = [("x0", "y0"), ("x1", "y1"), ("x2", "y2"), ("x3", "y3")];
    let window = plan.window();
    let coords: Vec<String> = names
        .iter()
        .zip(window.corners.iter())
        .flat_map(|((xn, yn), (x, y))| {
            [
                format!("{xn}='{}'", x.expr(&p)),
                format!("{yn}='{}'", y.expr(&p)),
            ]
        })
        .collect();
    chain.push_str(&format!(
        "perspective={}:interpolation=linear:eval=frame",
        coords.join(":")
    ));
    match effect {
        Some(effect) => format!("{chain}[mv];{};[fx]format=yuv420p[v]", effect.graph),
        None => format!("{chain},format=yuv420p[v]"),
    }
}

/// The previous renderer's whole clip command ([`reference_clip_graph`]): `still` → `output`.
pub fn reference_clip_command(
    plan: &ClipPlan,
    still: &StillInput,
    effect: Option<&EffectFilter>,
    encoding: &Encoding,
    output: &Path,
) -> FfmpegArgs {
    let mut cmd = FfmpegArgs::new(plan.frames);
    still_input(&mut cmd, plan, still);
    if let Some(effect) = effect {
        for input in &effect.inputs {
            cmd.input(&input.format, &input.path, &[]);
        }
    }
    let graph = reference_clip_graph(plan, still.orientation, effect);
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use stillreel_core::{Engine, Orientation, Resolution};

    use super::*;
    use stillreel_camera::geometry::clip_plan::Motion;
    use stillreel_core::media::MediaFormat;

    fn plan() -> ClipPlan {
        ClipPlan::new(
            Orientation::Landscape,
            Resolution::P720,
            Engine::V25,
            Motion::PushIn,
        )
    }

    fn list(parts: &[&[&str]]) -> Vec<String> {
        parts
            .iter()
            .flat_map(|p| p.iter().map(|s| (*s).to_owned()))
            .collect()
    }

    #[test]
    fn reference_clip_command_moves_with_perspective() {
        let still = StillInput {
            path: PathBuf::from("/abs/input-001.png"),
            format: MediaFormat::Png,
            orientation: ExifOrientation(1),
        };
        let cmd = reference_clip_command(
            &plan(),
            &still,
            None,
            &Encoding::default(),
            Path::new("out.mp4"),
        );
        let graph = reference_clip_graph(&plan(), ExifOrientation(1), None);
        assert_eq!(
            cmd.args[7..18],
            list(&[&[
                "-protocol_whitelist",
                "file",
                "-f",
                "png_pipe",
                "-noautorotate",
                "-framerate",
                "30",
                "-i",
                "/abs/input-001.png",
                "-filter_complex",
                &graph,
            ]])[..]
        );
        assert!(graph.contains("loop=loop=149:size=1:start=0"), "{graph}");
        assert!(graph.contains("perspective=x0="), "{graph}");
        assert!(graph.ends_with(",format=yuv420p[v]"), "{graph}");
    }
}
