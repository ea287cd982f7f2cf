//! What the preview lays over the camera's pixels, as data for the page to draw: each clip's
//! caption at the renderer's own layout ([`stillreel_effects::caption::layout`], the real text
//! on its plate), the intro's band and the outro card with their fields' boxes (the template's
//! layout; boxes, not the drawn text: the card's text is drawn by ffmpeg's `drawtext` with its
//! fonts), and the names of what only the renderer draws (effects, a model's clip).

use serde::Serialize;
use stillreel_core::{CreateVideoRequest, Engine, Template, TemplateSlot, Transition};
use stillreel_effects::caption::{ClipCaption, DEFAULT_PLATE, FADE_SECONDS, PLATE_OPACITY, layout};
use stillreel_effects::template::{Frame, INTRO_FADE, INTRO_SECONDS, OUTRO_FADE, band};

use crate::pixels::blend_weights;
use crate::timeline::Moment;

/// One caption line: its plate (text box plus padding) and where its text starts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaptionLine {
    pub text: String,
    /// The plate: left, top, width, height in pixels.
    pub plate: [f64; 4],
    /// The text's left and top.
    pub x: f64,
    pub y: f64,
}

/// A clip's caption, laid out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaptionOverlay {
    /// The text's size in pixels of the preview.
    pub size: f64,
    /// `#rrggbb` of the plate, drawn at [`PLATE_OPACITY`].
    pub plate_color: String,
    pub plate_opacity: f64,
    pub text_color: String,
    pub lines: Vec<CaptionLine>,
}

/// A template field's box.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldBox {
    pub key: String,
    /// The request's text for it, when it gave one.
    pub value: Option<String>,
    pub rect: [f64; 4],
}

/// The intro or outro card.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardOverlay {
    pub template: String,
    pub name: String,
    /// The intro's band (top, bottom), when its fields have a layout.
    pub band: Option<[u32; 2]>,
    pub background: Option<String>,
    pub accent: Option<String>,
    pub fields: Vec<FieldBox>,
}

/// Everything drawn over one clip.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClipOverlay {
    pub caption: Option<CaptionOverlay>,
    /// The effect asked for (`vfx.type`): drawn by ffmpeg, named on the preview.
    pub effect: Option<String>,
}

/// The overlays of a whole video.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overlays {
    pub clips: Vec<ClipOverlay>,
    pub intro: Option<CardOverlay>,
    pub outro: Option<CardOverlay>,
    /// Set when a model makes the clips (engine `generative`): the preview cannot show them.
    pub engine_note: Option<String>,
}

/// The opacities of the overlays on one frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Fades {
    pub intro: f64,
    pub outro: f64,
    /// The shown clip's caption, and the next clip's during a blend.
    pub caption: f64,
    pub next_caption: f64,
}

fn find<'a>(templates: &'a [Template], slot: Option<&TemplateSlot>) -> Option<&'a Template> {
    slot.and_then(|s| templates.iter().find(|t| t.id == s.template))
}

fn card(template: &Template, slot: &TemplateSlot, frame: Frame, intro: bool) -> CardOverlay {
    let fields = template
        .fields
        .iter()
        .filter_map(|f| {
            let rect = frame.pixels(f.layout.as_ref()?);
            let value = slot.config.get(&f.key).and_then(|v| match v {
                stillreel_core::TemplateValue::Text { value } => Some(value.clone()),
                _ => None,
            });
            Some(FieldBox {
                key: f.key.clone(),
                value,
                rect,
            })
        })
        .collect();
    CardOverlay {
        template: template.id.clone(),
        name: template.name.clone(),
        band: if intro {
            band(template, frame).map(|(t, b)| [t, b])
        } else {
            None
        },
        background: template.style.as_ref().map(|s| s.background.clone()),
        accent: template.style.as_ref().map(|s| s.accent.clone()),
        fields,
    }
}

/// A template the preview does not know (a deployment's own template file): named, no boxes.
fn unknown(slot: &TemplateSlot) -> CardOverlay {
    CardOverlay {
        template: slot.template.clone(),
        name: slot.template.clone(),
        band: None,
        background: None,
        accent: None,
        fields: Vec::new(),
    }
}

/// The overlays of `request` on a `width` × `height` preview.
pub fn overlays(
    request: &CreateVideoRequest,
    templates: &[Template],
    size: (u32, u32),
) -> Overlays {
    let frame = Frame {
        width: size.0,
        height: size.1,
        fps: stillreel_core::limits::FPS,
    };
    let branding = request.branding.as_ref();
    let intro_slot = branding.and_then(|b| b.intro.as_ref());
    let outro_slot = branding.and_then(|b| b.outro.as_ref());
    let intro = find(templates, intro_slot);
    let outro = find(templates, outro_slot);
    // The plate takes the brand's colour as the clip step does: the intro's background, else
    // the outro's.
    let plate = intro
        .into_iter()
        .chain(outro)
        .find_map(|t| t.style.as_ref().map(|s| s.background.clone()))
        .unwrap_or_else(|| DEFAULT_PLATE.to_owned());
    let clips = request
        .image_inputs
        .iter()
        .enumerate()
        .map(|(i, input)| ClipOverlay {
            caption: input.caption.as_ref().map(|c| {
                caption(
                    &ClipCaption {
                        text: c.text.clone(),
                        style: c.style,
                        plate: plate.clone(),
                        // As the clip step decides: any intro slot, known template or not.
                        at_top: i == 0 && intro_slot.is_some(),
                    },
                    request.resolution.dimensions(request.orientation),
                    size,
                )
            }),
            effect: input.vfx.as_ref().map(|v| v.kind().as_str().to_owned()),
        })
        .collect();
    Overlays {
        clips,
        intro: intro_slot.map(|s| intro.map_or_else(|| unknown(s), |t| card(t, s, frame, true))),
        outro: outro_slot.map(|s| outro.map_or_else(|| unknown(s), |t| card(t, s, frame, false))),
        engine_note: (request.ai_engine == Engine::Generative).then(|| {
            "engine generative: a model makes each clip; the preview holds the framed photo"
                .to_owned()
        }),
    }
}

/// A caption laid out as the renderer lays it (the server has the display font).
/// Laid out on the video's own frame (`render`, where the renderer's sizes round) and scaled
/// to the preview's `size`.
fn caption(caption: &ClipCaption, render: (u32, u32), size: (u32, u32)) -> CaptionOverlay {
    let l = layout(caption, render.0, render.1, true);
    let scale = f64::from(size.0) / f64::from(render.0.max(1));
    let (text_size, pad) = (f64::from(l.size), f64::from(l.pad));
    let lines = l
        .lines
        .iter()
        .map(|(text, left, top)| {
            let text_w = l.font.line_em(text) * text_size;
            let x = left.map_or((f64::from(render.0) - text_w) / 2.0, f64::from);
            let y = f64::from(*top);
            CaptionLine {
                text: text.clone(),
                plate: [
                    (x - pad) * scale,
                    (y - pad) * scale,
                    (text_w + 2.0 * pad) * scale,
                    (text_size + 2.0 * pad) * scale,
                ],
                x: x * scale,
                y: y * scale,
            }
        })
        .collect();
    let text_color = if stillreel_effects::caption::luminance(&caption.plate) > 0.4 {
        "#111111"
    } else {
        "#ffffff"
    };
    CaptionOverlay {
        size: text_size * scale,
        plate_color: caption.plate.clone(),
        plate_opacity: PLATE_OPACITY,
        text_color: text_color.to_owned(),
        lines,
    }
}

/// A caption's opacity at frame `n` of its clip: in over [`FADE_SECONDS`], out by the last
/// frame (the renderer's `drawtext` alpha).
pub fn caption_alpha(n: u32, clip_frames: u32, fps: u32) -> f64 {
    let fps = f64::from(fps);
    let seconds = f64::from(clip_frames) / fps;
    let fade = FADE_SECONDS.min(seconds / 4.0);
    let last = seconds - 1.0 / fps;
    let t = f64::from(n) / fps;
    (t / fade).min((last - t) / fade).clamp(0.0, 1.0)
}

/// The overlays' opacities at `moment` (frame `frame` of the video); during a blended join a
/// caption goes as its clip's picture goes ([`blend_weights`]).
pub fn fades(
    moment: &Moment,
    frame: u32,
    clip_frames: u32,
    fps: u32,
    transition: Transition,
) -> Fades {
    let f = f64::from(fps);
    match *moment {
        Moment::Outro { frame: k } => Fades {
            intro: 0.0,
            outro: (f64::from(k) / f / OUTRO_FADE).min(1.0),
            caption: 0.0,
            next_caption: 0.0,
        },
        Moment::Clips {
            shot,
            next,
            progress,
            intro,
            ..
        } => {
            let (a, b) = if next.is_some() {
                blend_weights(transition, progress)
            } else {
                (1.0, 0.0)
            };
            let t = f64::from(frame) / f;
            let span = f64::from(INTRO_SECONDS);
            Fades {
                intro: if intro {
                    (t / INTRO_FADE)
                        .min((span - t) / INTRO_FADE)
                        .clamp(0.0, 1.0)
                } else {
                    0.0
                },
                outro: 0.0,
                caption: a * caption_alpha(shot.frame, clip_frames, fps),
                next_caption: next.map_or(0.0, |s| b * caption_alpha(s.frame, clip_frames, fps)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caption_fades_in_and_is_gone_by_the_last_frame() {
        assert_eq!(caption_alpha(0, 150, 30), 0.0);
        assert!((caption_alpha(6, 150, 30) - 0.5).abs() < 1e-9);
        assert_eq!(caption_alpha(75, 150, 30), 1.0);
        assert_eq!(caption_alpha(149, 150, 30), 0.0);
    }
}
