//! The bridge from a request's `vfx` to the clip graph: procedural effects come from
//! `stillreel-effects` as filter fragments spliced between `[mv]` and `[fx]`; generative ones are
//! marked for the provider (the pipeline sends the still to it before the clip renders).

use std::sync::Arc;

use stillreel_core::Vfx;
use stillreel_effects::{EffectContext, EffectError, Pads, effect_filter};

use crate::effect::{ClipContext, EffectFilter, EffectInput, EffectStage};

/// The effect stage of one `vfx`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VfxStage {
    pub vfx: Vfx,
}

/// The stage for a request's `vfx`, ready for `ClipRequest::effect` (the job module).
pub fn stage(vfx: &Vfx) -> Arc<dyn EffectStage> {
    Arc::new(VfxStage { vfx: vfx.clone() })
}

impl EffectStage for VfxStage {
    fn filter(&self, ctx: &ClipContext) -> Result<EffectFilter, EffectError> {
        if self.vfx.kind().is_generative() {
            // The provider changed the still; the clip itself only moves the camera.
            return Ok(EffectFilter {
                graph: format!("[{}]null[{}]", ctx.input_pad, ctx.output_pad),
                ..EffectFilter::default()
            });
        }
        let effect_ctx = EffectContext::new(ctx.width, ctx.height, ctx.fps, ctx.frames, ctx.engine);
        let graph = effect_filter(&self.vfx, &effect_ctx)?;
        let streams = graph.extra_inputs.len() + usize::from(graph.masks.is_some());
        let specs: Vec<String> = (0..streams)
            .map(|i| format!("{}:v", ctx.first_extra_input + i))
            .collect();
        let spec_refs: Vec<&str> = specs.iter().map(String::as_str).collect();
        let prefix = format!("c{}_", ctx.index);
        let text = graph.render(&Pads {
            input: ctx.input_pad,
            output: ctx.output_pad,
            prefix: &prefix,
            extra: &spec_refs,
        })?;
        Ok(EffectFilter {
            graph: text,
            inputs: graph
                .extra_inputs
                .iter()
                .map(|x| EffectInput {
                    path: x.path.clone().into(),
                    format: "png_pipe".to_owned(),
                    options: Vec::new(),
                })
                .collect(),
            masks: graph.masks,
        })
    }

    fn generative(&self) -> Option<&Vfx> {
        self.vfx.kind().is_generative().then_some(&self.vfx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stillreel_core::{Engine, VfxType};

    fn ctx() -> ClipContext {
        ClipContext {
            width: 1280,
            height: 720,
            fps: 30,
            frames: 150,
            engine: Engine::V25,
            index: 3,
            input_pad: "mv",
            output_pad: "fx",
            first_extra_input: 1,
        }
    }

    #[test]
    fn procedural_effects_read_mv_and_write_fx() {
        for kind in VfxType::procedural() {
            let Some(vfx) = Vfx::plain(kind) else {
                continue;
            };
            let f = stage(&vfx).filter(&ctx()).expect("builds");
            assert!(f.graph.starts_with("[mv]"), "{kind}");
            assert!(f.graph.ends_with("[fx]"), "{kind}");
            assert!(
                !f.graph.contains("[fx_"),
                "internal labels are prefixed: {kind}"
            );
            assert!(stage(&vfx).generative().is_none());
        }
    }

    #[test]
    fn generative_effects_pass_the_picture_and_ask_for_the_provider() {
        let s = stage(&Vfx::SpinCeilingFan);
        assert_eq!(s.filter(&ctx()).expect("null").graph, "[mv]null[fx]");
        assert_eq!(s.generative(), Some(&Vfx::SpinCeilingFan));
    }
}
