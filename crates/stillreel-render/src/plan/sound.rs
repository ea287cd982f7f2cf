//! The branded video's sound: the music looped, cut to the branded length, normalised and
//! faded out over the outro card (over the last second without one), or silence.
//!
//! Three numbers decide it ([`BrandSound`]), all known before the main video is stitched, so
//! the stitch makes it beside the main video's own sound, on the core its single-threaded
//! audio chain leaves idle, and stores it ([`AheadSound`]); the branded render then only
//! fetches it (`BrandJob::sound_key`). Without that copy (a video stitched before this, a
//! failed attempt) the branded render makes it itself with the same command.

use std::path::Path;

use stillreel_effects::template::OUTRO_SECONDS;

use crate::ffmpeg::command::{self, FfmpegArgs, MusicInput, SAMPLE_RATE};

/// Length and fade of the branded video's sound, in frames of the video.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrandSound {
    pub fps: u32,
    /// Frames of the branded video (the main part after the ramp, and the outro card).
    pub frames: u32,
    /// Frame at which the music starts to fade out.
    pub fade_start: u32,
    /// Frames the fade lasts.
    pub fade_frames: u32,
}

impl BrandSound {
    /// The sound of a branded video whose main part is `body_frames` long: with an outro card
    /// the music runs under it and fades out with it; without one it fades over the last
    /// second, as the main video's does.
    pub fn new(body_frames: u32, fps: u32, outro: bool) -> Self {
        if outro {
            let card = OUTRO_SECONDS * fps;
            BrandSound {
                fps,
                frames: body_frames + card,
                fade_start: body_frames,
                fade_frames: card,
            }
        } else {
            BrandSound {
                fps,
                frames: body_frames,
                fade_start: body_frames.saturating_sub(fps),
                fade_frames: fps,
            }
        }
    }

    pub fn seconds(&self) -> f64 {
        f64::from(self.frames) / f64::from(self.fps)
    }

    /// `(start, seconds)` of the fade.
    pub fn fade(&self) -> (f64, f64) {
        let fps = f64::from(self.fps);
        (
            f64::from(self.fade_start) / fps,
            f64::from(self.fade_frames) / fps,
        )
    }

    /// The sound from input pad `music` (e.g. `3:a`, looped by the demuxer) or silence, to
    /// `[output]`: exactly [`BrandSound::frames`] long.
    pub fn graph(&self, music: Option<&str>, output: &str) -> String {
        match music {
            Some(input) => {
                let (start, fade) = self.fade();
                command::music_chain(input, self.seconds(), start, fade, output)
            }
            None => {
                let samples = u64::from(self.frames) * u64::from(SAMPLE_RATE) / u64::from(self.fps);
                format!(
                    "anullsrc=r={SAMPLE_RATE}:cl=stereo,atrim=end_sample={samples},\
                     aformat=sample_fmts=fltp:channel_layouts=stereo[{output}]"
                )
            }
        }
    }
}

/// The branded sound a stitch is to make ahead, and the storage key to leave it at (chosen by
/// the caller, like every key; the branded render looks for it at `BrandJob::sound_key`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AheadSound {
    pub sound: BrandSound,
    pub key: String,
}

/// The branded video's sound alone (`output`, AAC in MP4). The branded render runs it beside
/// its encoded parts, or the stitch beside the main video's join, so the join only copies.
pub fn sound_command(sound: &BrandSound, music: Option<&MusicInput>, output: &Path) -> FfmpegArgs {
    let mut cmd = FfmpegArgs::new(sound.frames);
    if let Some(music) = music {
        cmd.input(
            music.format.ffmpeg_demuxer(),
            &music.path,
            &["-stream_loop", "-1"],
        );
    }
    let graph = sound.graph(music.map(|_| "0:a"), "b_a");
    let sr = SAMPLE_RATE.to_string();
    command::push(
        &mut cmd.args,
        [
            "-filter_complex",
            &graph,
            "-map",
            "[b_a]",
            "-c:a",
            "aac",
            "-b:a",
            "160k",
            "-ar",
            &sr,
            "-ac",
            "2",
            "-f",
            "mp4",
        ],
    );
    cmd.args.push(command::local_arg(output));
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_an_outro_the_music_fades_over_the_last_second() {
        let s = BrandSound::new(300, 30, false);
        assert_eq!(s.fade(), (9.0, 1.0));
        assert!((s.seconds() - 10.0).abs() < 1e-9);
        let short = BrandSound::new(20, 30, false);
        assert_eq!(
            short.fade_start, 0,
            "a clip under a second fades from its start"
        );
        let with_card = BrandSound::new(600, 30, true);
        assert_eq!(with_card.fade(), (20.0, 3.0));
        assert!((with_card.seconds() - 23.0).abs() < 1e-9);
    }
}
