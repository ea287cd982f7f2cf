//! The concat demuxer's list: which files (in the work directory, by safe relative names only,
//! so the list cannot reach outside it) are joined, and which part of each is copied.

/// A name the concat list refuses: only plain names of files in the work directory (letters,
/// digits, `_`, `-`, `.`, not starting with `.`) are written, so the list cannot reach outside it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unsafe concat entry {0:?}")]
pub struct UnsafeConcatName(pub String);

/// The concat demuxer's list for files in the same directory: relative safe names only.
pub fn concat_list(names: &[String]) -> Result<String, UnsafeConcatName> {
    let entries: Vec<ConcatEntry> = names.iter().map(|n| ConcatEntry::whole(n)).collect();
    concat_list_from(&entries)
}

/// One file of a concat list, whole or a part of it copied between keyframes.
#[derive(Debug, Clone, PartialEq)]
pub struct ConcatEntry {
    pub name: String,
    /// Start at this presentation time (a keyframe's, so the copy starts cleanly there).
    pub inpoint: Option<f64>,
    /// Stop before this decoding time (a keyframe's: the packets before it in decoding order
    /// are exactly the frames before it).
    pub outpoint: Option<f64>,
    /// The part's length, so the next file's timestamps follow it exactly.
    pub duration: Option<f64>,
}

impl ConcatEntry {
    pub fn whole(name: &str) -> Self {
        ConcatEntry {
            name: name.to_owned(),
            inpoint: None,
            outpoint: None,
            duration: None,
        }
    }
}

/// [`concat_list`] of entries that may be parts of their files.
pub fn concat_list_from(entries: &[ConcatEntry]) -> Result<String, UnsafeConcatName> {
    let mut list = String::from("ffconcat version 1.0\n");
    for entry in entries {
        let name = &entry.name;
        let safe = !name.is_empty()
            && !name.starts_with('.')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !safe {
            return Err(UnsafeConcatName(name.clone()));
        }
        list.push_str(&format!("file '{name}'\n"));
        for (directive, value) in [
            ("inpoint", entry.inpoint),
            ("outpoint", entry.outpoint),
            ("duration", entry.duration),
        ] {
            if let Some(value) = value {
                list.push_str(&format!("{directive} {value:.6}\n"));
            }
        }
    }
    Ok(list)
}

/// [`concat_list_from`] exposing only each file's track 1, the video (every file the renderer
/// writes maps its video first). A join that copies the picture reads nothing else, and the
/// other tracks of a file at the head of the list would still count for the input's start
/// time: a main video's AAC track (its priming frame) shifted the copied picture by 21 ms,
/// which a constant-frame-rate decode then filled with a duplicated first frame.
pub fn concat_video_list_from(entries: &[ConcatEntry]) -> Result<String, UnsafeConcatName> {
    let list = concat_list_from(entries)?;
    Ok(list.replacen(
        "ffconcat version 1.0\n",
        "ffconcat version 1.0\nstream\nexact_stream_id 0x1\n",
        1,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_video_list_exposes_track_one_only() {
        let list = concat_video_list_from(&[ConcatEntry::whole("main.mp4")]).expect("list");
        assert_eq!(
            list,
            "ffconcat version 1.0\nstream\nexact_stream_id 0x1\nfile 'main.mp4'\n"
        );
        assert!(concat_video_list_from(&[ConcatEntry::whole("../x.mp4")]).is_err());
    }
}
