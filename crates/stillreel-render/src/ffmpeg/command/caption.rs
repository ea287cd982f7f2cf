//! The disclosure caption: a small "Virtually staged" label in the lower right corner of a
//! clip whose picture a model altered (staging, people). Altered listing photos must be
//! disclosed (California AB 723, MLS rules), so it is on by default; a deployment turns it off
//! with `STILLREEL_DISCLOSURE_CAPTION=off` (docs/PROVIDERS.md, "Disclosure").

use stillreel_core::VfxType;

use super::FfmpegArgs;

/// The caption's text.
pub const CAPTION_TEXT: &str = "Virtually staged";

/// Whether a clip with this vfx shows a model's alteration of the home: staging and people
/// (a turning fan changes nothing of the property).
pub fn needs_caption(vfx: VfxType) -> bool {
    matches!(vfx, VfxType::VirtualStaging | VfxType::Lifestyle)
}

/// The drawtext filter of the caption for a frame `height` pixels high: white text on a
/// translucent dark box, 1/30 of the height, inset by 1/40 of it.
pub fn caption_filter(height: u32) -> String {
    let size = (height / 30).max(12);
    let inset = (height / 40).max(8);
    format!(
        "drawtext=fontfile={font}:text='{CAPTION_TEXT}':fontsize={size}:fontcolor=white:\
         box=1:boxcolor=black@0.55:boxborderw={pad}:x=w-tw-{inset}:y=h-th-{inset}",
        font = stillreel_effects::text::FONT_FILE,
        pad = size / 3,
    )
}

/// Draws the caption over the clip's frames: the graph's final `[v]` becomes the caption's
/// input. Call before [`super::add_still_output`] so the thumbnail shows it too. `false` when
/// the command has no clip graph ending in `[v]`.
pub fn add_caption(cmd: &mut FfmpegArgs, height: u32) -> bool {
    append_to_graph(cmd, &caption_filter(height))
}

/// Appends the filter chain `filters` to the command's clip graph: the graph's final `[v]`
/// becomes its input, its output the new `[v]`. `false` when the command has no clip graph
/// ending in `[v]`. The disclosure caption and a clip's own caption both go this way.
pub fn append_to_graph(cmd: &mut FfmpegArgs, filters: &str) -> bool {
    let Some(at) = cmd.args.iter().position(|a| a == "-filter_complex") else {
        return false;
    };
    let Some(graph) = cmd.args.get_mut(at + 1) else {
        return false;
    };
    let Some(body) = graph.strip_suffix("[v]") else {
        return false;
    };
    // A second layer (the clip's caption over the disclosure) needs a label of its own.
    let label = match body.matches("[uncaptioned").count() / 2 {
        0 => "uncaptioned".to_owned(),
        n => format!("uncaptioned{n}"),
    };
    *graph = format!("{body}[{label}];[{label}]{filters}[v]");
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caption_ends_the_clip_graph() {
        let mut cmd = FfmpegArgs::new(150);
        cmd.args = [
            "-filter_complex",
            "[0:v]setsar=1,format=yuv420p[v]",
            "-map",
            "[v]",
        ]
        .map(str::to_owned)
        .to_vec();
        assert!(add_caption(&mut cmd, 720));
        assert_eq!(
            cmd.args[1],
            format!(
                "[0:v]setsar=1,format=yuv420p[uncaptioned];[uncaptioned]drawtext=fontfile={}:\
                 text='Virtually staged':fontsize=24:fontcolor=white:box=1:\
                 boxcolor=black@0.55:boxborderw=8:x=w-tw-18:y=h-th-18[v]",
                stillreel_effects::text::FONT_FILE
            )
        );
        assert_eq!(cmd.args[3], "[v]");
        let mut none = FfmpegArgs::new(1);
        assert!(!add_caption(&mut none, 720));
        assert!(needs_caption(VfxType::VirtualStaging) && needs_caption(VfxType::Lifestyle));
        assert!(!needs_caption(VfxType::SpinCeilingFan));
    }
}
