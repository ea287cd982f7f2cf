//! Where a stored video's keyframes are and which parameter sets it carries, read from its
//! MP4 boxes ([`mp4`]) or, for a file laid out otherwise, by ffprobe from its packets
//! (nothing decoded). The branded render and the blended transitions encode
//! only the frames they change and copy the rest, which is only possible from a keyframe on
//! and between files whose H.264 parameter sets (`avcC` extradata) are byte-identical.

mod mp4;
mod sps;

use std::path::Path;

use crate::ffmpeg::command;
use crate::ffmpeg::runner::{RenderError, Step};
use crate::media::probe::ProbeError;

/// One keyframe: its presentation and decoding times in seconds of the file's timeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Keyframe {
    pub pts: f64,
    /// Where a copy that must end just before this keyframe stops (the concat demuxer's
    /// `outpoint` compares decoding times).
    pub dts: f64,
}

/// The facts of a video stream a copy needs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VideoFacts {
    /// Keyframes in file order.
    pub keyframes: Vec<Keyframe>,
    /// A digest of the stream's extradata (`avcC`: its parameter sets), as ffprobe prints it
    /// (`SHA256:<hex>`); equal digests, equal parameter sets.
    pub extradata: String,
    /// Frame width and height.
    pub size: (u32, u32),
    /// The colour description the stream signals (its SPS's VUI), as ffmpeg output options:
    /// a part encoded with them carries the same parameter sets as the file it is copied
    /// beside (clips from JPEGs signal BT.601 with centred chroma; a card drawn by lavfi
    /// signals nothing unless told).
    pub color_args: Vec<String>,
}

/// ffprobe's stream keys of the colour description and the ffmpeg output option for each.
const COLOR_KEYS: [(&str, &str); 5] = [
    ("color_range", "-color_range"),
    ("color_space", "-colorspace"),
    ("color_transfer", "-color_trc"),
    ("color_primaries", "-color_primaries"),
    ("chroma_location", "-chroma_sample_location"),
];

impl VideoFacts {
    /// Whether a part with these facts joins `other` by stream copy: both carry the same,
    /// known parameter sets.
    pub fn same_parameter_sets(&self, other: &VideoFacts) -> bool {
        !self.extradata.is_empty() && self.extradata == other.extradata
    }

    /// Keyframes as frame indices from the first one (`fps` frames a second), with each
    /// keyframe, sorted.
    pub fn frames(&self, fps: u32) -> Vec<(u32, Keyframe)> {
        let Some(first) = self.keyframes.iter().map(|k| k.pts).reduce(f64::min) else {
            return Vec::new();
        };
        let mut frames: Vec<(u32, Keyframe)> = self
            .keyframes
            .iter()
            .map(|&k| {
                (
                    ((k.pts - first) * f64::from(fps)).round().max(0.0) as u32,
                    k,
                )
            })
            .collect();
        frames.sort_by_key(|&(n, _)| n);
        frames
    }
}

/// ffprobe's arguments for `file`: the first video stream's extradata digest, size and colour
/// description, and every packet's times and flags. A digest rather than `-show_data`: that
/// also dumps every packet's payload in hexadecimal (1 s for a 30 s 1080p video, where the
/// digest takes a tenth of it).
pub fn facts_args(file: &Path) -> Vec<String> {
    [
        "-v",
        "error",
        "-select_streams",
        "v:0",
        "-show_data_hash",
        "SHA256",
        "-show_entries",
        "stream=extradata_hash,width,height,color_range,color_space,color_transfer,\
         color_primaries,chroma_location:packet=pts_time,dts_time,flags",
        "-of",
        "json",
    ]
    .into_iter()
    .map(str::to_owned)
    .chain([command::local_arg(file)])
    .collect()
}

/// Reads [`facts_args`]' answer.
pub fn parse_facts(json: &[u8]) -> Result<VideoFacts, ProbeError> {
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| ProbeError::NotJson(e.to_string()))?;
    let stream = value["streams"]
        .as_array()
        .and_then(|s| s.first())
        .ok_or(ProbeError::NoVideo)?;
    let extradata = stream["extradata_hash"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let dimension = |key: &str| {
        stream[key]
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .unwrap_or(0)
    };
    let size = (dimension("width"), dimension("height"));
    let time = |p: &serde_json::Value, key: &str| p[key].as_str()?.parse::<f64>().ok();
    let keyframes = value["packets"]
        .as_array()
        .map(|packets| {
            packets
                .iter()
                .filter(|p| p["flags"].as_str().is_some_and(|f| f.starts_with('K')))
                .filter_map(|p| {
                    let pts = time(p, "pts_time")?;
                    Some(Keyframe {
                        pts,
                        dts: time(p, "dts_time").unwrap_or(pts),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    // Only plain names (`tv`, `bt470bg`, `iec61966-2-1`) are passed on as arguments.
    let plain = |v: &str| {
        !v.is_empty()
            && !v.starts_with('-')
            && v != "unknown"
            && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    let color_args = COLOR_KEYS
        .iter()
        .filter_map(|(key, option)| {
            let value = stream[*key].as_str().filter(|v| plain(v))?;
            Some([(*option).to_owned(), value.to_owned()])
        })
        .flatten()
        .collect();
    Ok(VideoFacts {
        keyframes,
        extradata,
        size,
        color_args,
    })
}

/// The facts of `name` in `dir` (blocking): from its MP4 boxes ([`mp4`]), or by ffprobe when
/// the file is laid out otherwise.
pub fn probe_facts(
    ffprobe: &Path,
    dir: &Path,
    name: &str,
    step: Step,
) -> Result<VideoFacts, RenderError> {
    if let Some(facts) = std::fs::read(dir.join(name))
        .ok()
        .and_then(|data| mp4::video_facts(&data))
    {
        return Ok(facts);
    }
    run_ffprobe(ffprobe, dir, name, step)
}

/// The boxes' reading alone (`None`: ffprobe would be asked), for tests against ffprobe.
pub fn facts_from_boxes(data: &[u8]) -> Option<VideoFacts> {
    mp4::video_facts(data)
}

/// Runs ffprobe on `name` in `dir` (blocking).
pub fn run_ffprobe(
    ffprobe: &Path,
    dir: &Path,
    name: &str,
    step: Step,
) -> Result<VideoFacts, RenderError> {
    let out = crate::media::probe::ffprobe_output(
        ffprobe,
        &facts_args(Path::new(name)),
        Some(dir),
        step,
    )?;
    parse_facts(&out).map_err(|e| RenderError::Io {
        step,
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_keyframes_and_extradata() {
        let json = br#"{"packets":[
            {"pts_time":"0.000000","dts_time":"-0.066667","flags":"K_"},
            {"pts_time":"0.066667","dts_time":"-0.033333","flags":"__"},
            {"pts_time":"2.000000","dts_time":"1.933333","flags":"K_"}],
            "streams":[{"extradata_hash":"SHA256:0a1b","width":1280,"height":720,"color_range":"tv",
            "color_space":"bt470bg","chroma_location":"center","color_transfer":"-x y"}]}"#;
        let facts = parse_facts(json).expect("facts");
        assert_eq!(
            facts.keyframes,
            [
                Keyframe {
                    pts: 0.0,
                    dts: -0.066667
                },
                Keyframe {
                    pts: 2.0,
                    dts: 1.933333
                }
            ]
        );
        assert_eq!(facts.extradata, "SHA256:0a1b");
        assert_eq!(facts.size, (1280, 720));
        assert_eq!(
            facts.color_args,
            [
                "-color_range",
                "tv",
                "-colorspace",
                "bt470bg",
                "-chroma_sample_location",
                "center"
            ],
            "a value that is not a plain name is left out"
        );
        let frames: Vec<u32> = facts.frames(30).iter().map(|f| f.0).collect();
        assert_eq!(frames, [0, 60]);
        assert_eq!(parse_facts(br#"{"streams":[]}"#), Err(ProbeError::NoVideo));
        assert!(matches!(parse_facts(b"no"), Err(ProbeError::NotJson(_))));
    }

    #[test]
    fn frames_count_from_the_first_keyframe() {
        let at = |pts: f64| Keyframe { pts, dts: pts };
        let facts = VideoFacts {
            keyframes: vec![at(4.1), at(0.1), at(2.1)],
            ..VideoFacts::default()
        };
        let frames: Vec<u32> = facts.frames(30).iter().map(|f| f.0).collect();
        assert_eq!(frames, [0, 60, 120]);
        assert!(VideoFacts::default().frames(30).is_empty());
    }
}
