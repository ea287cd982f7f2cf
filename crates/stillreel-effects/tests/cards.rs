//! The branded cards drawn by real ffmpeg and judged on decoded frames: the title-card intro's
//! dark band reaches the top of the frame (no undimmed strip above it), and the portrait outro
//! card uses its height.
#![expect(clippy::unwrap_used, reason = "test")]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use stillreel_core::catalog::builtin_templates;
use stillreel_core::types::Template;
use stillreel_effects::Pads;
use stillreel_effects::template::{FieldValue, Frame, intro_overlay, outro_card};

fn template(id: &str) -> &'static Template {
    builtin_templates().iter().find(|t| t.id == id).unwrap()
}

fn text(pairs: &[(&str, &str)]) -> BTreeMap<String, FieldValue> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), FieldValue::Text((*v).to_owned())))
        .collect()
}

/// Frame `n` of the graph's `[out]` as grey bytes; `input` is a lavfi source for `[in]` (or
/// none for the outro), the graph's extra inputs follow.
fn frame(
    graph: &stillreel_effects::EffectGraph,
    input: Option<&str>,
    n: u32,
    out: &Path,
) -> Vec<u8> {
    let extra: Vec<String> = (0..graph.extra_inputs.len())
        .map(|i| format!("{}:v", i + usize::from(input.is_some())))
        .collect();
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let frag = graph
        .render(&Pads {
            input: "0:v",
            output: "card",
            prefix: "",
            extra: &extra,
        })
        .unwrap();
    let mut cmd = Command::new("ffmpeg");
    cmd.args(["-hide_banner", "-loglevel", "error", "-nostdin", "-y"]);
    if let Some(source) = input {
        cmd.args(["-f", "lavfi", "-i", source]);
    }
    for e in &graph.extra_inputs {
        cmd.args(["-i", &e.path]);
    }
    let graph = format!("{frag};[card]select=eq(n\\,{n})[picked]");
    let st = cmd
        .args([
            "-filter_complex",
            &graph,
            "-map",
            "[picked]",
            "-frames:v",
            "1",
        ])
        .args(["-f", "rawvideo", "-pix_fmt", "gray"])
        .arg(out)
        .status()
        .unwrap();
    assert!(st.success(), "ffmpeg failed: {graph}");
    std::fs::read(out).unwrap()
}

fn row_mean(f: &[u8], w: usize, y: usize, xs: std::ops::Range<usize>) -> f64 {
    let n = xs.len() as f64;
    xs.map(|x| f64::from(f[y * w + x])).sum::<f64>() / n
}

/// Over a white picture, the title card's band dims the frame's top rows as it dims the band
/// itself (left of the text, a second into the intro), in both orientations.
#[test]
fn the_title_cards_band_reaches_the_top_of_the_frame() {
    let dir = tempfile::tempdir().unwrap();
    let values = text(&[("headline", "Just Listed"), ("price", "$1,250,000")]);
    for (w, h) in [(1280u32, 720u32), (720, 1280)] {
        let frame_size = Frame {
            width: w,
            height: h,
            fps: 30,
        };
        let graph = intro_overlay(template("intro-title-card"), &values, frame_size).unwrap();
        let source = format!("color=c=white:s={w}x{h}:r=30:d=3,format=yuv420p");
        let f = frame(&graph, Some(&source), 30, &dir.path().join("intro.gray"));
        let (wu, hu) = (w as usize, h as usize);
        let margin = 0..wu / 25;
        // The band's inside, by the frame's left edge where no text is: dimmed.
        let band = row_mean(&f, wu, hu / 2, margin.clone());
        assert!(band < 180.0, "{w}x{h}: the band is not dimmed ({band})");
        // Landscape: the band reaches the top (its logo box is 8 % down); portrait: it starts
        // lower (19 %) and leaves the photo above it, as designed, and nothing in between.
        let top_rows: Vec<f64> = (0..4)
            .map(|y| row_mean(&f, wu, y, margin.clone()))
            .collect();
        if w > h {
            for (y, v) in top_rows.iter().enumerate() {
                assert!(
                    (v - band).abs() < 8.0,
                    "{w}x{h}: row {y} ({v}) is not dimmed like the band ({band})"
                );
            }
        } else {
            assert!(top_rows.iter().all(|v| *v > 240.0), "{w}x{h}: {top_rows:?}");
        }
    }
}

/// The portrait minimal outro card with its logo: drawn content (pixels away from the card's
/// background, the accent bar along the bottom left out) spans most of the frame's height, and
/// its middle lies near the frame's.
#[test]
fn the_portrait_outro_card_uses_its_height() {
    let dir = tempfile::tempdir().unwrap();
    let logo = dir.path().join("logo.png");
    let st = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-nostdin", "-y"])
        .args([
            "-f",
            "lavfi",
            "-i",
            "color=c=0x1d3557:s=480x240",
            "-frames:v",
            "1",
        ])
        .arg(&logo)
        .status()
        .unwrap();
    assert!(st.success());
    let mut values = text(&[
        ("brokerage", "Harbour Realty"),
        ("call_to_action", "Book a viewing today"),
        ("website", "harbour.example"),
    ]);
    values.insert(
        "logo".into(),
        FieldValue::Image {
            path: logo.to_string_lossy().into_owned(),
            upright: None,
        },
    );
    let (w, h) = (720usize, 1280usize);
    let graph = outro_card(
        template("outro-minimal"),
        &values,
        Frame {
            width: w as u32,
            height: h as u32,
            fps: 30,
        },
    )
    .unwrap();
    let f = frame(&graph, None, 45, &dir.path().join("outro.gray"));
    let background = f64::from(f[10 * w + 10]);
    let drawn: Vec<usize> = (0..h * 97 / 100)
        .filter(|&y| (0..w).any(|x| (f64::from(f[y * w + x]) - background).abs() > 40.0))
        .collect();
    let (first, last) = (drawn[0], drawn[drawn.len() - 1]);
    let span = (last - first) as f64 / h as f64;
    let middle = (first + last) as f64 / 2.0 / h as f64;
    eprintln!("portrait outro: drawn rows {first}..{last}, {span:.2} of the height");
    assert!(
        span > 0.6,
        "the card's content spans {span:.2} of its height"
    );
    assert!((middle - 0.5).abs() < 0.06, "its middle is at {middle:.2}");
}
