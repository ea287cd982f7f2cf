//! What a job does, as the queue knows it: its kind's name (the `jobs.kind` column) and its
//! claim rank (the `jobs.claim_rank` column, written with the row). The work of each kind is
//! in `worker/kinds/`, and each kind declares its own [`JobKind`] with [`JobKind::new`] in its
//! file there; the queue only stores and orders kinds, so a new kind needs nothing here. The
//! two kinds declared here start a video's jobs and are queued by the repository with the
//! video's rows (`repo::videos`), which sits below the worker; the webhook deliveries'
//! kinds are in the webhook module (`webhook.rs`), for the same reason.

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
    /// Model calls (the `generate` kind): `STILLREEL_PROVIDER_CONCURRENCY` loops.
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

/// The `'static` copy of a stored kind name: each distinct name leaked once (there are a
/// handful of kinds, not a stream of them).
fn intern(name: &str) -> &'static str {
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
        let model = JobKind::new("model_call", ClaimRank::Middle)
            .making(Makes::Video)
            .in_lane(Lane::Model);
        let branded = JobKind::new("branded", ClaimRank::Finishing).making(Makes::Branding);
        let delivery = JobKind::new("delivery", ClaimRank::Finishing);
        let prepare = JobKind::new("prepare", ClaimRank::Starting).making(Makes::Video);
        for kind in [prepare, model, branded, delivery] {
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
        assert_eq!(model.lane(), Lane::Model);
        assert_eq!(prepare.lane(), Lane::Render);
        assert_eq!(prepare.makes(), Makes::Video);
        assert_eq!(branded.makes(), Makes::Branding);
        assert_eq!(delivery.makes(), Makes::Nothing);
        let other = JobKind::from_stored("thumbnail", 1, None, "render");
        assert_eq!(other.as_str(), "thumbnail");
        assert_eq!(other.makes(), Makes::Nothing);
        assert!(std::ptr::eq(
            other.as_str(),
            JobKind::from_stored("thumbnail", 1, None, "render").as_str()
        ));
    }
}
