//! The contract between an effect and the clip graph: what an effect is told and what it returns.

use std::fmt::Write as _;

use stillreel_core::{Engine, VfxType};

use crate::scene::MaskStream;
use crate::text::FONT_FILE;

/// Facts about the clip an effect is applied to.
#[derive(Debug, Clone, PartialEq)]
pub struct EffectContext {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    /// Frames in the clip (150 for 5 s at 30 fps).
    pub frames: u32,
    pub engine: Engine,
    /// Font for drawn text; [`FONT_FILE`] by default.
    pub font_file: String,
}

impl EffectContext {
    pub fn new(width: u32, height: u32, fps: u32, frames: u32, engine: Engine) -> Self {
        EffectContext {
            width,
            height,
            fps,
            frames,
            engine,
            font_file: FONT_FILE.to_owned(),
        }
    }

    /// Clip length in seconds.
    pub fn seconds(&self) -> f64 {
        f64::from(self.frames) / f64::from(self.fps)
    }

    /// The shorter side in pixels (text and motion sizes scale with it).
    pub fn short_side(&self) -> u32 {
        self.width.min(self.height)
    }

    /// Frame number of time `t` seconds, clamped to the clip.
    pub fn frame_at(&self, t: f64) -> u32 {
        ((t * f64::from(self.fps)).round().max(0.0) as u32).min(self.frames)
    }

    pub(crate) fn check(&self) -> Result<(), EffectError> {
        let even = self.width.is_multiple_of(2) && self.height.is_multiple_of(2);
        if !(16..=8192).contains(&self.width) || !(16..=8192).contains(&self.height) || !even {
            return Err(EffectError::BadContext(format!(
                "frame {}x{} must be even and 16..8192",
                self.width, self.height
            )));
        }
        if self.fps == 0 || self.fps > 120 || self.frames < 2 {
            return Err(EffectError::BadContext(format!(
                "{} frames at {} fps",
                self.frames, self.fps
            )));
        }
        Ok(())
    }
}

/// A file the fragment reads as an extra ffmpeg input (template images). The caller adds it as an
/// input (forcing its format, so the file's content cannot choose a demuxer) and passes its stream
/// specifier in [`Pads::extra`], in this order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraInput {
    pub path: String,
    /// What the file is for, for error messages (`logo`, `headshot`).
    pub role: String,
}

/// A filtergraph fragment with placeholder pads: `[in]` (the clip), `[out]` (the result),
/// `[extraN]` (the N-th extra input) and internal labels starting `fx_`.
#[derive(Debug, Clone, PartialEq)]
pub struct EffectGraph {
    fragment: String,
    pub extra_inputs: Vec<ExtraInput>,
    /// Masks of the picture the fragment reads (`[extraN]` after the N extra input files): the
    /// caller computes them from the still with [`crate::scene::masks`] and moves them with the
    /// camera.
    pub masks: Option<MaskStream>,
}

/// Real pad names for [`EffectGraph::render`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pads<'a> {
    /// Label of the stream the effect reads, without brackets (`v0`, `0:v`).
    pub input: &'a str,
    /// Label the effect's result gets.
    pub output: &'a str,
    /// Prefix for internal labels, so several fragments can share one graph (`c3_`).
    pub prefix: &'a str,
    /// Stream specifiers of the extra inputs (`2:v`), one per [`EffectGraph::extra_inputs`], then
    /// the mask stream's if the graph has [`EffectGraph::masks`].
    pub extra: &'a [&'a str],
}

impl EffectGraph {
    pub(crate) fn new(fragment: String) -> Self {
        EffectGraph {
            fragment,
            extra_inputs: Vec::new(),
            masks: None,
        }
    }

    pub(crate) fn with_masks(self, masks: MaskStream) -> Self {
        EffectGraph {
            masks: Some(masks),
            ..self
        }
    }

    pub(crate) fn with_inputs(fragment: String, extra_inputs: Vec<ExtraInput>) -> Self {
        EffectGraph {
            fragment,
            extra_inputs,
            masks: None,
        }
    }

    /// The fragment with its placeholders (for docs and tests).
    pub fn fragment(&self) -> &str {
        &self.fragment
    }

    /// The fragment with real pad names, ready to join into `-filter_complex` with `;`.
    pub fn render(&self, pads: &Pads<'_>) -> Result<String, EffectError> {
        let needed = self.extra_inputs.len() + usize::from(self.masks.is_some());
        if pads.extra.len() != needed {
            return Err(EffectError::BadContext(format!(
                "{} extra inputs given, fragment needs {needed}",
                pads.extra.len(),
            )));
        }
        // Replace whole `[label]` tokens only; escaped brackets (`\[`) inside arguments are text.
        let mut out = String::with_capacity(self.fragment.len() + 64);
        let mut rest = self.fragment.as_str();
        while let Some(open) = rest.find('[') {
            let escaped = rest[..open].ends_with('\\');
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            match after.find(']') {
                Some(close) if !escaped => {
                    let label = &after[..close];
                    match label {
                        "in" => {
                            let _ = write!(out, "[{}]", pads.input);
                        }
                        "out" => {
                            let _ = write!(out, "[{}]", pads.output);
                        }
                        l if l.starts_with("extra") => {
                            let idx: usize = l[5..]
                                .parse()
                                .map_err(|_| EffectError::BadContext(format!("bad pad {l}")))?;
                            let spec = pads.extra.get(idx).ok_or_else(|| {
                                EffectError::BadContext(format!("no extra input {idx}"))
                            })?;
                            let _ = write!(out, "[{spec}]");
                        }
                        l if l.starts_with("fx_") => {
                            let _ = write!(out, "[{}{l}]", pads.prefix);
                        }
                        l => {
                            let _ = write!(out, "[{l}]");
                        }
                    }
                    rest = &after[close + 1..];
                }
                _ => {
                    out.push('[');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// Why an effect cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EffectError {
    /// Generative types are rendered by a provider (`stillreel_providers`), not by a graph.
    #[error("{0} is a generative effect: render it through a provider")]
    Generative(VfxType),
    #[error("word-drop text is not drawable: {0}")]
    BadText(String),
    #[error("invalid effect context: {0}")]
    BadContext(String),
    #[error("template {template}: {message}")]
    Template { template: String, message: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_replaces_only_pads() {
        let g = EffectGraph::new(r"[in]split[fx_a][fx_b];[fx_a][extra0]overlay[fx_c];[fx_b][fx_c]blend,drawtext=text=\[in\][out]".into());
        let g = EffectGraph {
            extra_inputs: vec![ExtraInput {
                path: "l.png".into(),
                role: "logo".into(),
            }],
            ..g
        };
        let s = g
            .render(&Pads {
                input: "v0",
                output: "v1",
                prefix: "c2_",
                extra: &["3:v"],
            })
            .expect("renders");
        assert_eq!(
            s,
            r"[v0]split[c2_fx_a][c2_fx_b];[c2_fx_a][3:v]overlay[c2_fx_c];[c2_fx_b][c2_fx_c]blend,drawtext=text=\[in\][v1]"
        );
        assert!(
            g.render(&Pads {
                input: "a",
                output: "b",
                prefix: "",
                extra: &[]
            })
            .is_err()
        );
    }

    #[test]
    fn context_checks() {
        assert!(
            EffectContext::new(1280, 720, 30, 150, Engine::V25)
                .check()
                .is_ok()
        );
        assert!(
            EffectContext::new(1281, 720, 30, 150, Engine::V25)
                .check()
                .is_err()
        );
        assert!(
            EffectContext::new(1280, 720, 0, 150, Engine::V25)
                .check()
                .is_err()
        );
        assert_eq!(
            EffectContext::new(1280, 720, 30, 150, Engine::V24).frame_at(1.0),
            30
        );
    }
}
