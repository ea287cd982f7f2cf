//! Intro overlays and outro cards drawn from template data (`stillreel_core::Template`): every
//! field's box is a fraction of the frame per orientation, text is fitted into its box with the
//! font's real metrics (never cut off), images are scaled into their box keeping their aspect
//! ratio and centred in it.
//!
//! A template is drawn **once** as a still (an `rgba` layer for the intro, an opaque card for the
//! outro) and then repeated with `loop`; only the intro's fade runs per frame.
//!
//! Notes from ffmpeg 5.1.9: `drawbox` on an `rgba` frame with `replace=1` segfaults, so the
//! intro's band is made of `color` sources stacked and padded instead.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use stillreel_core::types::{FieldLayout, Template, TemplateFieldType, TemplateSlotKind, TextFont};

use crate::escape::{Filter, color};
use crate::graph::{EffectError, EffectGraph, ExtraInput};
use crate::text::{self, Font};

/// Length of the intro overlay and of the outro card, in seconds (docs/API-DESIGN.md#rendering).
pub const INTRO_SECONDS: u32 = stillreel_core::limits::INTRO_SECONDS;
pub const OUTRO_SECONDS: u32 = stillreel_core::limits::OUTRO_SECONDS;
/// Intro fade in and fade out, seconds.
pub const INTRO_FADE: f64 = 0.5;
/// Outro fade in from black, seconds.
pub const OUTRO_FADE: f64 = 0.4;

/// The frame a template is drawn on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
}

impl Frame {
    pub fn portrait(self) -> bool {
        self.height > self.width
    }

    fn short_side(self) -> f64 {
        f64::from(self.width.min(self.height))
    }

    /// A layout box in pixels: left, top, width, height.
    pub fn pixels(self, layout: &FieldLayout) -> [f64; 4] {
        let b = if self.portrait() {
            layout.portrait
        } else {
            layout.landscape
        };
        let (w, h) = (f64::from(self.width), f64::from(self.height));
        let c = |v: f32| f64::from(v.clamp(0.0, 1.0));
        let left = c(b[0]) * w;
        let top = c(b[1]) * h;
        // A box never reaches past the frame, whatever the data says.
        [
            left,
            top,
            (c(b[2]) * w).min(w - left),
            (c(b[3]) * h).min(h - top),
        ]
    }
}

/// The value of one field, as the renderer has it: text, or a local picture (already fetched and
/// checked by the caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    Text(String),
    Image {
        path: String,
        /// Filters that turn the stored pixels upright (EXIF), e.g. `transpose=1`.
        upright: Option<String>,
    },
}

/// One line of text placed on the frame (for tests and docs).
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedLine {
    pub field: String,
    pub text: String,
    pub size: u32,
    /// Left edge and top in pixels, and the line's width from the font metrics.
    pub x: f64,
    pub y: f64,
    pub width: f64,
    /// The font that draws it (the field's role, or the body font as fallback).
    pub font: Font,
}

/// Lays out every text field that has a value: what will be drawn where. Pure; the tests check
/// that every line stays inside its box and the frame.
pub fn layout_text(
    template: &Template,
    values: &BTreeMap<String, FieldValue>,
    frame: Frame,
) -> Result<Vec<PlacedLine>, EffectError> {
    let mut placed = Vec::new();
    for field in &template.fields {
        let (Some(layout), Some(FieldValue::Text(value))) = (&field.layout, values.get(&field.key))
        else {
            continue;
        };
        if field.kind != TemplateFieldType::Text {
            return Err(template_error(
                template,
                format!("{} is not text", field.key),
            ));
        }
        let [bx, by, bw, bh] = frame.pixels(layout);
        let scale = if frame.portrait() && template.slot == TemplateSlotKind::Outro {
            PORTRAIT_CARD_TEXT
        } else {
            1.0
        };
        let preferred = (f64::from(layout.font_size) * frame.short_side() * scale).max(8.0);
        // Blank text draws nothing (optional fields may be sent empty).
        let wanted = match layout.font {
            TextFont::Body => Font::Body,
            TextFont::Display => Font::Display,
        };
        let Some(fitted) = text::fit_in(wanted, value, bw, bh, preferred) else {
            continue;
        };
        let size = f64::from(fitted.size);
        let top =
            by + (bh - (fitted.line_px * (fitted.lines.len() as f64 - 1.0) + size * 1.17)) / 2.0;
        for (i, (line, width)) in fitted.lines.iter().zip(&fitted.widths).enumerate() {
            if line.is_empty() {
                continue;
            }
            let x = match layout.align.as_str() {
                "center" => bx + (bw - width) / 2.0,
                "right" => bx + bw - width,
                _ => bx,
            };
            placed.push(PlacedLine {
                field: field.key.clone(),
                text: line.clone(),
                size: fitted.size,
                x,
                y: top + fitted.line_px * i as f64,
                width: *width,
                font: fitted.font,
            });
        }
    }
    Ok(placed)
}

fn template_error(template: &Template, message: String) -> EffectError {
    EffectError::Template {
        template: template.id.clone(),
        message,
    }
}

/// The drawing chain shared by intro and outro: text lines (drawtext) on the still `[canvas]`,
/// then images overlaid, ending in `[label]`. Returns the chain and the extra inputs it reads.
fn draw_fields(
    template: &Template,
    values: &BTreeMap<String, FieldValue>,
    frame: Frame,
    canvas: &str,
    label: &str,
    shadow: bool,
) -> Result<(String, Vec<ExtraInput>), EffectError> {
    let lines = layout_text(template, values, frame)?;
    let mut g = String::new();
    let _ = write!(g, "[{canvas}]null");
    for line in &lines {
        let layout = template
            .field(&line.field)
            .and_then(|f| f.layout.as_ref())
            .ok_or_else(|| template_error(template, format!("{} has no layout", line.field)))?;
        let mut draw = Filter::new("drawtext")
            .arg("fontfile", line.font.file())
            .arg("expansion", "none")
            .arg("text", &line.text)
            .arg("fontsize", line.size)
            .arg("fontcolor", color(&layout.color, 1.0))
            .arg("x", format!("{:.1}", line.x))
            .arg("y", format!("{:.1}", line.y));
        if shadow {
            let off = (f64::from(line.size) * 0.05).max(1.0).round();
            draw = draw
                .arg("shadowx", off)
                .arg("shadowy", off)
                .arg("shadowcolor", "0x000000@0.65");
        }
        let _ = write!(g, ",{draw}");
    }
    let _ = write!(g, "[fx_text]");
    let mut last = "fx_text".to_owned();
    let mut inputs = Vec::new();
    for field in &template.fields {
        let (Some(layout), Some(FieldValue::Image { path, upright })) =
            (&field.layout, values.get(&field.key))
        else {
            continue;
        };
        if field.kind != TemplateFieldType::Image {
            return Err(template_error(
                template,
                format!("{} is not an image", field.key),
            ));
        }
        let [bx, by, bw, bh] = frame.pixels(layout);
        let (bw, bh) = ((bw.floor() as u32).max(2), (bh.floor() as u32).max(2));
        let n = inputs.len();
        inputs.push(ExtraInput {
            path: path.clone(),
            role: field.key.clone(),
        });
        let turn = upright
            .as_deref()
            .map(|t| format!("{t},"))
            .unwrap_or_default();
        let _ = write!(
            g,
            ";[extra{n}]{turn}format=rgba,scale={bw}:{bh}:force_original_aspect_ratio=decrease:flags=lanczos,setsar=1[fx_img{n}];\
             [{last}][fx_img{n}]{ov}[fx_drawn{n}]",
            ov = Filter::new("overlay")
                .arg("x", format!("{:.0}+({bw}-overlay_w)/2", bx))
                .arg("y", format!("{:.0}+({bh}-overlay_h)/2", by))
                .arg("format", "rgb"),
        );
        last = format!("fx_drawn{n}");
    }
    let _ = write!(g, ";[{last}]format=rgba[{label}]");
    Ok((g, inputs))
}

/// The thinnest strip (fraction of the frame's height) an intro's band leaves between itself
/// and the frame's top or bottom; a thinner one is closed.
pub const BAND_SNAP: f64 = 0.08;

/// How much larger an outro card's text is drawn on a portrait frame than its font size says
/// (a fraction of the shorter side): a 9:16 card is 1.8 times as tall as it is wide, and text
/// sized by its width alone left it mostly empty. Text still shrinks to fit its box.
pub const PORTRAIT_CARD_TEXT: f64 = 1.35;

/// Pixel box covering every field of the template (with a margin), across the whole width: the
/// intro's band, reaching the frame's edge when it comes within [`BAND_SNAP`] of it. `None`
/// when no field has a layout.
pub fn band(template: &Template, frame: Frame) -> Option<(u32, u32)> {
    let boxes: Vec<[f64; 4]> = template
        .fields
        .iter()
        .filter_map(|f| f.layout.as_ref())
        .map(|l| frame.pixels(l))
        .collect();
    let top = boxes.iter().map(|b| b[1]).fold(f64::INFINITY, f64::min);
    let bottom = boxes.iter().map(|b| b[1] + b[3]).fold(0.0, f64::max);
    if !top.is_finite() {
        return None;
    }
    let height = f64::from(frame.height);
    let margin = height * 0.03;
    // A strip thinner than BAND_SNAP left between the band and the frame's edge looks like a
    // glitch (undimmed sky above a title card): the band reaches the edge instead.
    let snap = height * BAND_SNAP;
    let top = (top - margin).max(0.0);
    let top = if top < snap { 0.0 } else { top };
    let bottom = (bottom + margin).min(height);
    let bottom = if height - bottom < snap {
        height
    } else {
        bottom
    };
    let top = (top / 2.0).floor() as u32 * 2;
    let bottom = (bottom / 2.0).ceil() as u32 * 2;
    Some((top, bottom.min(frame.height).max(top + 2)))
}

fn check_slot(template: &Template, slot: TemplateSlotKind) -> Result<(), EffectError> {
    if template.slot == slot {
        Ok(())
    } else {
        Err(template_error(
            template,
            format!("is an {} template", template.slot),
        ))
    }
}

/// The intro: the template drawn over the first 3 s of `[in]` (the band of its style behind the
/// fields, an accent rule on the band's top edge unless the band starts at the frame's top,
/// text with a soft shadow), fading in over 0.5 s
/// and out over the last 0.5 s; `[out]` is `[in]` with the overlay, same length. `[in]` must have
/// timestamps `N/fps` from 0.
pub fn intro_overlay(
    template: &Template,
    values: &BTreeMap<String, FieldValue>,
    frame: Frame,
) -> Result<EffectGraph, EffectError> {
    check_slot(template, TemplateSlotKind::Intro)?;
    let (w, h, fps) = (frame.width, frame.height, frame.fps);
    let frames = INTRO_SECONDS * fps;
    let style = template
        .style
        .clone()
        .unwrap_or(stillreel_core::types::TemplateStyle {
            background: "#000000".into(),
            background_opacity: 0.5,
            accent: "#ffffff".into(),
        });
    let (top, bottom) = band(template, frame).unwrap_or((h / 2, h));
    // The accent rule marks the band's top edge; a band from the frame's top has none (a
    // line along the frame's edge would read as a border).
    let rule = if top == 0 {
        0
    } else {
        ((frame.short_side() * 0.006).round() as u32).max(2) / 2 * 2
    };
    let band_h = (bottom - top).saturating_sub(rule).max(2);
    let pad = Filter::new("pad")
        .arg("w", w)
        .arg("h", h)
        .arg("x", 0)
        .arg("y", top)
        .arg("color", "black@0");
    let bg = color(&style.background, style.background_opacity);
    let canvas = if rule == 0 {
        format!("color=c={bg}:s={w}x{band_h}:r={fps},format=rgba,{pad},trim=end_frame=1[fx_canvas]")
    } else {
        format!(
            "color=c={accent}:s={w}x{rule}:r={fps},format=rgba[fx_rule];\
             color=c={bg}:s={w}x{band_h}:r={fps},format=rgba[fx_bandbg];\
             [fx_rule][fx_bandbg]vstack,{pad},trim=end_frame=1[fx_canvas]",
            accent = color(&style.accent, 0.95),
        )
    };
    let (draw, inputs) = draw_fields(template, values, frame, "fx_canvas", "fx_layer1", true)?;
    let fade_out = f64::from(INTRO_SECONDS) - INTRO_FADE;
    // The layer is drawn once; only its band (everything outside is transparent) is kept and
    // turned into the video's yuva420p before it is repeated, so each frame fades and blends
    // the band alone and nothing is converted per frame (a third of the CPU of overlaying the
    // whole frame in RGBA at 1080p).
    let fragment = format!(
        "{canvas};{draw};\
         [fx_layer1]crop=w={w}:h={band}:x=0:y={top},format=yuva420p,\
         loop=loop={}:size=1:start=0,setpts=N/{fps}/TB,\
         fade=t=in:st=0:d={INTRO_FADE}:alpha=1,fade=t=out:st={fade_out}:d={INTRO_FADE}:alpha=1[fx_layer];\
         [in][fx_layer]overlay=x=0:y={top}:format=yuv420:eof_action=pass,format=yuv420p[out]",
        frames - 1,
        band = bottom - top,
    );
    Ok(EffectGraph::with_inputs(fragment, inputs))
}

/// The outro: a 3 s end card (`[out]`, yuv420p, `3 × fps` frames, timestamps `N/fps`): the style's
/// background (a background opacity under 1 is shown over black), an accent bar along the
/// bottom, the fields, a fade in from black. Reads no `[in]`.
pub fn outro_card(
    template: &Template,
    values: &BTreeMap<String, FieldValue>,
    frame: Frame,
) -> Result<EffectGraph, EffectError> {
    check_slot(template, TemplateSlotKind::Outro)?;
    let (w, h, fps) = (frame.width, frame.height, frame.fps);
    let frames = OUTRO_SECONDS * fps;
    let style = template
        .style
        .clone()
        .unwrap_or(stillreel_core::types::TemplateStyle {
            background: "#000000".into(),
            background_opacity: 1.0,
            accent: "#ffffff".into(),
        });
    let bar = ((f64::from(h) * 0.015).round() as u32).max(2) / 2 * 2;
    let canvas = format!(
        "color=c={bg}:s={w}x{}:r={fps},format=rgba[fx_cardbg];\
         color=c={accent}:s={w}x{bar}:r={fps},format=rgba[fx_bar];\
         [fx_cardbg][fx_bar]vstack,trim=end_frame=1[fx_cardtop];\
         color=c=black:s={w}x{h}:r={fps},format=rgba,trim=end_frame=1[fx_black];\
         [fx_black][fx_cardtop]overlay=format=rgb[fx_canvas]",
        h - bar,
        bg = color(&style.background, style.background_opacity),
        accent = color(&style.accent, 1.0),
    );
    let (draw, inputs) = draw_fields(template, values, frame, "fx_canvas", "fx_card1", false)?;
    let fragment = format!(
        "{canvas};{draw};\
         [fx_card1]format=yuv420p,loop=loop={}:size=1:start=0,setpts=N/{fps}/TB,\
         fade=t=in:st=0:d={OUTRO_FADE},setsar=1[out]",
        frames - 1,
    );
    Ok(EffectGraph::with_inputs(fragment, inputs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stillreel_core::catalog::builtin_templates;

    fn template(id: &str) -> &'static Template {
        builtin_templates()
            .iter()
            .find(|t| t.id == id)
            .expect("template")
    }

    fn text(pairs: &[(&str, &str)]) -> BTreeMap<String, FieldValue> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), FieldValue::Text((*v).to_owned())))
            .collect()
    }

    const FRAMES: [Frame; 4] = [
        Frame {
            width: 1280,
            height: 720,
            fps: 30,
        },
        Frame {
            width: 720,
            height: 1280,
            fps: 30,
        },
        Frame {
            width: 1920,
            height: 1080,
            fps: 30,
        },
        Frame {
            width: 1080,
            height: 1920,
            fps: 30,
        },
    ];

    #[test]
    fn long_text_with_newlines_stays_inside_its_box_in_every_frame() {
        let long = "Jane Alexandra Montgomery-Richardson\nSenior Listing Specialist & Luxury Homes Director";
        for t in builtin_templates() {
            let values: BTreeMap<String, FieldValue> = t
                .fields
                .iter()
                .filter(|f| f.kind == TemplateFieldType::Text)
                .map(|f| (f.key.clone(), FieldValue::Text(long.to_owned())))
                .collect();
            for frame in FRAMES {
                let lines = layout_text(t, &values, frame).expect("layout");
                assert!(!lines.is_empty());
                for line in &lines {
                    let layout = t
                        .field(&line.field)
                        .and_then(|f| f.layout.as_ref())
                        .expect("layout");
                    let [bx, by, bw, bh] = frame.pixels(layout);
                    let s = f64::from(line.size);
                    assert!(
                        line.x >= bx - 0.01 && line.x + line.width <= bx + bw + 0.01,
                        "{} {line:?}",
                        t.id
                    );
                    assert!(
                        line.y >= by - 0.01 && line.y + s * 1.17 <= by + bh + 0.01,
                        "{} {line:?}",
                        t.id
                    );
                    assert!(line.x + line.width <= f64::from(frame.width));
                    assert!(line.y + s * 1.17 <= f64::from(frame.height));
                }
                // Nothing is cut: every word of every field is drawn.
                for f in t
                    .fields
                    .iter()
                    .filter(|f| f.kind == TemplateFieldType::Text)
                {
                    let drawn: Vec<&str> = lines
                        .iter()
                        .filter(|l| l.field == f.key)
                        .flat_map(|l| l.text.split_whitespace())
                        .collect();
                    assert_eq!(
                        drawn,
                        long.split_whitespace().collect::<Vec<_>>(),
                        "{} {}",
                        t.id,
                        f.key
                    );
                }
            }
        }
    }

    #[test]
    fn newlines_make_lines_and_alignment_follows_the_layout() {
        let t = template("intro-title-card");
        let frame = FRAMES[0];
        let lines =
            layout_text(t, &text(&[("headline", "Open House\nSunday")]), frame).expect("layout");
        assert_eq!(
            lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(),
            ["Open House", "Sunday"]
        );
        let [bx, _, bw, _] = frame.pixels(
            t.field("headline")
                .and_then(|f| f.layout.as_ref())
                .expect("layout"),
        );
        for l in &lines {
            // Centred.
            assert!(
                ((l.x - bx) - (bx + bw - l.x - l.width)).abs() < 0.5,
                "{l:?}"
            );
        }
        assert!(lines[1].y > lines[0].y);
    }

    #[test]
    fn graphs_have_their_pads_and_inputs() {
        let mut values = text(&[("address", "12 Elm St"), ("agent_name", "Zoë: 100%, [x]")]);
        values.insert(
            "logo".into(),
            FieldValue::Image {
                path: "logo.png".into(),
                upright: Some("transpose=1".into()),
            },
        );
        let g = intro_overlay(template("intro-lower-third"), &values, FRAMES[0]).expect("intro");
        assert_eq!(g.extra_inputs.len(), 1);
        assert!(g.fragment().contains("[in]") && g.fragment().ends_with("[out]"));
        assert!(g.fragment().contains("[extra0]transpose=1,"));
        // User text is escaped for both parsing levels (graph, then option).
        assert!(
            g.fragment().contains(r"text=\'Zoë: 100%\, \[x\]\'"),
            "{}",
            g.fragment()
        );
        let o = outro_card(
            template("outro-minimal"),
            &text(&[("brokerage", "Acme")]),
            FRAMES[1],
        )
        .expect("outro");
        assert!(o.extra_inputs.is_empty() && !o.fragment().contains("[in]"));
        assert!(intro_overlay(template("outro-minimal"), &values, FRAMES[0]).is_err());
    }
}
