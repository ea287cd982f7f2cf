//! Prints the scene masks of a raw RGB picture, for looking at them:
//! `ffmpeg -i photo.jpg -vf scale=320:180 -f rawvideo -pix_fmt rgb24 - | scene_masks 320 180 > masks.gray`
//! writes the sky mask above the lights mask (gray, 320×360).

use std::io::{Read, Write};
use std::process::ExitCode;

use stillreel_effects::scene::{SceneMask, masks};

fn main() -> ExitCode {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let [w, h] = args[..] else {
        eprintln!("usage: scene_masks <width> <height> < rgb24 > gray");
        return ExitCode::from(2);
    };
    let mut rgb = Vec::new();
    if std::io::stdin().read_to_end(&mut rgb).is_err() || rgb.len() != w * h * 3 {
        eprintln!("expected {} bytes of rgb24 on standard input", w * h * 3);
        return ExitCode::from(2);
    }
    let out = masks(&[SceneMask::Sky, SceneMask::Lights], &rgb, w, h);
    match std::io::stdout().write_all(&out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}
