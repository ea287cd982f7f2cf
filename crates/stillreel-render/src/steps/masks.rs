//! The scene masks an effect reads (`day-to-twilight`'s sky and lit windows), made for one
//! clip: computed once from the clip's canvas (`stillreel_effects::scene`), drawn through the
//! camera's window for every mask frame (`stillreel_camera::draw::masks`), written as raw grey
//! frames into the work dir and added as the effect's last input. About 20 ms for a 720p clip,
//! against a clip that takes seconds.

use std::io::{BufWriter, Write};
use std::path::Path;

use stillreel_camera::draw::masks::{canvas_rgb, write_mask_frames};
use stillreel_camera::draw::warp::Canvas;
use stillreel_camera::geometry::clip_plan::ClipPlan;
use stillreel_effects::scene;

use crate::effect::{EffectFilter, EffectInput};
use crate::ffmpeg::runner::{RenderError, Step, io_error};

/// Whether the camera moves the masks: the camera's own clips, or a provider's clip, whose
/// motion the model made (the masks of the still are then held as they are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    Camera,
    Still,
}

/// Computes `effect`'s masks from `canvas`, writes them to `masks-NNN.gray` in `dir` and adds
/// that file as the effect's last input. Nothing when the effect reads no masks.
pub fn add_mask_input(
    effect: &mut EffectFilter,
    canvas: &Canvas,
    plan: &ClipPlan,
    follow: Follow,
    index: usize,
    dir: &Path,
) -> Result<(), RenderError> {
    let Some(stream) = &effect.masks else {
        return Ok(());
    };
    let step = Step::Clip(index);
    let (w, h) = (stream.width as usize, stream.height as usize);
    let rgb = canvas_rgb(canvas, w, h);
    let masks = scene::masks(&stream.kinds, &rgb, w, h);
    let name = format!("masks-{index:03}.gray");
    let file = std::fs::File::create(dir.join(&name)).map_err(|e| io_error(step, e))?;
    let mut out = BufWriter::new(file);
    match follow {
        Follow::Camera => write_mask_frames(
            plan,
            &masks,
            (stream.width, stream.height),
            stream.kinds.len(),
            stream.step,
            &mut out,
        ),
        Follow::Still => (0..stream.frames(plan.frames))
            .try_for_each(|_| out.write_all(&masks))
            .and_then(|()| out.flush()),
    }
    .map_err(|e| io_error(step, e))?;
    effect.inputs.push(EffectInput {
        path: name.into(),
        format: "rawvideo".to_owned(),
        options: [
            "-pix_fmt".to_owned(),
            "gray".to_owned(),
            "-video_size".to_owned(),
            format!("{w}x{}", h * stream.kinds.len()),
            "-framerate".to_owned(),
            format!("{}/{}", plan.fps, stream.step),
        ]
        .into(),
    });
    Ok(())
}
