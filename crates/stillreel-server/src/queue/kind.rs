//! What a job does, as the queue knows it: its kind's name (the `jobs.kind` column) and its
//! claim rank (the `jobs.claim_rank` column, written with the row). The work of each kind is
//! in `worker/kinds/`; the queue only stores and orders kinds, so a new kind needs nothing
//! here (it declares its own [`JobKind`] with [`JobKind::new`]).

use std::sync::Mutex;

/// Where a job stands in the claim order, among the runnable jobs of the account chosen
/// (see `claims.rs`): jobs that finish a started video first, then clips, then jobs that
/// start a video. Stored in `jobs.claim_rank` when the job is queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ClaimRank {
    /// Short work that finishes a started video (a stitch, a branded render, a webhook
    /// delivery): taken before any long job, whoever's it is.
    Finishing = 0,
    /// Long work inside a started video (a clip).
    Middle = 1,
    /// Long work that starts a video (a prepare, a combine).
    Starting = 2,
}

impl ClaimRank {
    /// The stored value.
    pub const fn value(self) -> i16 {
        self as i16
    }

    fn from_value(value: i16) -> Self {
        match value {
            0 => ClaimRank::Finishing,
            1 => ClaimRank::Middle,
            _ => ClaimRank::Starting,
        }
    }
}

/// The record a job makes, stored in `jobs.makes` when the job is queued: a job that fails
/// for good (its attempts used up, its worker gone) fails that record, and the queued jobs
/// making the same video are cancelled. The lease sweep and the cancelling read this column,
/// so no SQL lists kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Makes {
    /// The video itself (a prepare, a clip, a stitch, a combine).
    Video,
    /// The video's branded render.
    Branding,
    /// No record: a job around a settled video (a webhook delivery), whose failure changes
    /// nothing of the video.
    Nothing,
}

impl Makes {
    /// The stored value (`NULL` for [`Makes::Nothing`]).
    pub const fn stored(self) -> Option<&'static str> {
        match self {
            Makes::Video => Some("video"),
            Makes::Branding => Some("branding"),
            Makes::Nothing => None,
        }
    }

    fn from_stored(value: Option<&str>) -> Self {
        match value {
            Some("video") => Makes::Video,
            Some("branding") => Makes::Branding,
            _ => Makes::Nothing,
        }
    }
}

/// Which loops claim a job, stored in `jobs.lane` when the job is queued. Model calls wait on
/// a remote host for up to minutes and use no ffmpeg, so they run in loops of their own and
/// never hold one of the render slots (`STILLREEL_WORKERS`); render loops never take them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lane {
    /// The render slots: every kind but model calls.
    Render,
    /// Model calls ([`JobKind::GENERATE`]): `STILLREEL_PROVIDER_CONCURRENCY` loops.
    Model,
}

impl Lane {
    /// The stored value.
    pub const fn stored(self) -> &'static str {
        match self {
            Lane::Render => "render",
            Lane::Model => "model",
        }
    }

    fn from_stored(value: &str) -> Self {
        if value == "model" {
            Lane::Model
        } else {
            Lane::Render
        }
    }
}

/// A kind of job: its stored name, its claim rank, the record it makes and the loops that claim
/// it. Two kinds are the same kind when their names are.
#[derive(Debug, Clone, Copy)]
pub struct JobKind {
    name: &'static str,
    rank: ClaimRank,
    makes: Makes,
    lane: Lane,
}

impl PartialEq for JobKind {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for JobKind {}

impl std::hash::Hash for JobKind {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl JobKind {
    /// Fetch and check every input of a video once and store the checked copies.
    pub const PREPARE: JobKind = JobKind::new("prepare", ClaimRank::Starting).making(Makes::Video);
    /// Make a clip's generated input (a staged still, a fan clip, a depth map) with the
    /// configured model provider, before its clip renders (`Job::clip_index`). Claimed only by
    /// the model lane (`claims::Lane`).
    pub const GENERATE: JobKind = JobKind::new("generate", ClaimRank::Middle)
        .making(Makes::Video)
        .in_lane(Lane::Model);
    /// Render one clip (its index in `Job::clip_index`) from its stored input.
    pub const CLIP: JobKind = JobKind::new("clip", ClaimRank::Middle).making(Makes::Video);
    /// Join a video's clips, in index order, and mix its music or silence.
    pub const STITCH: JobKind = JobKind::new("stitch", ClaimRank::Finishing).making(Makes::Video);
    /// Join the existing clips of a `combine_video_clips` video.
    pub const COMBINE: JobKind = JobKind::new("combine", ClaimRank::Starting).making(Makes::Video);
    /// Render the branded version of a completed video.
    pub const BRANDING: JobKind =
        JobKind::new("branding", ClaimRank::Finishing).making(Makes::Branding);
    /// Deliver the webhook event of a settled video.
    pub const VIDEO_WEBHOOK: JobKind = JobKind::new("video_webhook", ClaimRank::Finishing);
    /// Deliver the webhook event of a settled branded render.
    pub const BRANDING_WEBHOOK: JobKind = JobKind::new("branding_webhook", ClaimRank::Finishing);

    /// A kind named `name` (lower case, as stored), claimed at `rank` by the render loops,
    /// making no record (see [`JobKind::making`] and [`JobKind::in_lane`]).
    pub const fn new(name: &'static str, rank: ClaimRank) -> Self {
        JobKind {
            name,
            rank,
            makes: Makes::Nothing,
            lane: Lane::Render,
        }
    }

    /// This kind, claimed only by the loops of `lane`.
    pub const fn in_lane(self, lane: Lane) -> Self {
        JobKind { lane, ..self }
    }

    /// This kind, making `makes`: its failure for good fails that record.
    pub const fn making(self, makes: Makes) -> Self {
        JobKind { makes, ..self }
    }

    pub const fn as_str(self) -> &'static str {
        self.name
    }

    pub const fn claim_rank(self) -> ClaimRank {
        self.rank
    }

    pub const fn makes(self) -> Makes {
        self.makes
    }

    pub const fn lane(self) -> Lane {
        self.lane
    }

    /// The kind of a stored row. Any name is accepted (a newer process may queue kinds this
    /// one does not run; the runner says so when it claims one), and each distinct name is
    /// kept once for the life of the process.
    pub fn from_stored(name: &str, rank: i16, makes: Option<&str>, lane: &str) -> Self {
        JobKind {
            name: intern(name),
            rank: ClaimRank::from_value(rank),
            makes: Makes::from_stored(makes),
            lane: Lane::from_stored(lane),
        }
    }
}

/// The `'static` copy of a stored kind name: the built-in names without allocating, any
/// other name leaked once (there are a handful of kinds, not a stream of them).
fn intern(name: &str) -> &'static str {
    const KNOWN: &[&str] = &[
        "render",
        "prepare",
        "clip",
        "generate",
        "stitch",
        "combine",
        "branding",
        "video_webhook",
        "branding_webhook",
    ];
    if let Some(known) = KNOWN.iter().find(|k| **k == name) {
        return known;
    }
    static OTHERS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut others = OTHERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(found) = others.iter().find(|k| **k == name) {
        return found;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    others.push(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_kinds_round_trip_with_their_rank() {
        for kind in [
            JobKind::PREPARE,
            JobKind::CLIP,
            JobKind::GENERATE,
            JobKind::STITCH,
            JobKind::COMBINE,
            JobKind::BRANDING,
            JobKind::VIDEO_WEBHOOK,
            JobKind::BRANDING_WEBHOOK,
        ] {
            let stored = JobKind::from_stored(
                kind.as_str(),
                kind.claim_rank().value(),
                kind.makes().stored(),
                kind.lane().stored(),
            );
            assert_eq!(stored, kind);
            assert_eq!(stored.claim_rank(), kind.claim_rank());
            assert_eq!(stored.makes(), kind.makes());
            assert_eq!(stored.lane(), kind.lane());
        }
        assert_eq!(JobKind::GENERATE.lane(), Lane::Model);
        assert_eq!(JobKind::CLIP.lane(), Lane::Render);
        assert_eq!(JobKind::CLIP.makes(), Makes::Video);
        assert_eq!(JobKind::BRANDING.makes(), Makes::Branding);
        assert_eq!(JobKind::VIDEO_WEBHOOK.makes(), Makes::Nothing);
        let other = JobKind::from_stored("thumbnail", 1, None, "render");
        assert_eq!(other.as_str(), "thumbnail");
        assert_eq!(other.makes(), Makes::Nothing);
        assert!(std::ptr::eq(
            other.as_str(),
            JobKind::from_stored("thumbnail", 1, None, "render").as_str()
        ));
    }
}
