//! Prints the filtergraph fragment of one effect with pads `[in]`/`[out]` replaced:
//! `cargo run -p stillreel-effects --example fragment -- <vfx-json> <width> <height> [frames] [engine]`.
//! Used by `scripts/effects_gallery.sh`. An effect that reads scene masks reads them as
//! `[masks]`; their stream is described on standard error (the `scene_masks` example makes
//! one frame of it from a picture).
#![expect(clippy::print_stdout, reason = "command-line tool")]

use std::process::ExitCode;

use stillreel_core::{Engine, Vfx};
use stillreel_effects::{EffectContext, Pads, effect_filter};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(vfx), Some(w), Some(h)) = (args.first(), args.get(1), args.get(2)) else {
        eprintln!("usage: fragment <vfx-json> <width> <height> [frames] [v24|v25]");
        return ExitCode::from(2);
    };
    let vfx: Vfx = match serde_json::from_str(vfx) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("bad vfx json: {e}");
            return ExitCode::from(2);
        }
    };
    let num = |s: &str| s.parse::<u32>().ok();
    let (Some(w), Some(h)) = (num(w), num(h)) else {
        eprintln!("width and height must be numbers");
        return ExitCode::from(2);
    };
    let frames = args.get(3).and_then(|s| num(s)).unwrap_or(150);
    let engine = args
        .get(4)
        .and_then(|s| Engine::parse(s))
        .unwrap_or(Engine::V25);
    let ctx = EffectContext::new(w, h, 30, frames, engine);
    match effect_filter(&vfx, &ctx).and_then(|g| {
        if let Some(m) = &g.masks {
            eprintln!(
                "[masks]: gray {}x{} ({:?} stacked), one frame per {} frames",
                m.width,
                m.height * m.kinds.len() as u32,
                m.kinds,
                m.step
            );
        }
        let extra: &[&str] = if g.masks.is_some() { &["masks"] } else { &[] };
        g.render(&Pads {
            input: "base",
            output: "fx",
            prefix: "",
            extra,
        })
    }) {
        Ok(s) => {
            println!("{s}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
