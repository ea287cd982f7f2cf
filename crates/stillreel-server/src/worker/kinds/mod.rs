//! The service's kinds of job, one file each. To add a kind: a file here implementing
//! [`Kind`](super::Kind), declaring its [`JobKind`](crate::queue::JobKind) and building the
//! jobs that follow it in its `record`, and one line in the `kinds!` list below, which
//! declares the file's module and registers its kinds in [`builtin`].
//!
//! Beside the kinds: `keys.rs` makes every storage key the steps write, `pace.rs` says how a
//! created video's clips move, `video_failure.rs` fails a video for the kinds that make one.

use super::kind::Kinds;

mod keys;
mod pace;
mod video_failure;

/// `module: Kind, ...;` per line: declares each kind's module and lists its kinds, in this
/// order, in [`builtin`]. One macro so that a kind's file and its registration cannot drift
/// apart (a module declared but never registered would queue jobs no worker runs).
macro_rules! kinds {
    ($($module:ident: $($kind:ident),+;)+) => {
        $(mod $module;)+

        /// Every kind this service runs, as listed in `kinds!`.
        pub fn builtin() -> Kinds {
            Kinds::new()$($(.with($module::$kind))+)+
        }
    };
}

kinds! {
    prepare: Prepare;
    generate: Generate;
    clip: Clip;
    stitch: Stitch;
    combine: Combine;
    branding: Branding;
    webhook: VideoWebhook, BrandingWebhook;
}

pub use branding::{BRANDING, Branding};
pub use clip::{CLIP, Clip, RenderedClip};
pub use combine::{COMBINE, Combine};
pub use generate::{GENERATE, Generate};
pub use keys::served_folder;
pub use prepare::{PREPARE, Prepare};
pub use stitch::{STITCH, Stitch};
pub use webhook::{BrandingWebhook, VideoWebhook};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{ClaimRank, JobKind, Lane, Makes};
    use crate::worker::kind::Kind;

    /// The stored names (and ranks, records, lanes) are in the database's `jobs` rows: a kind
    /// that changed its name would strand every queued job of the old one.
    #[test]
    fn built_in_kinds_keep_their_stored_names() {
        let table: [(JobKind, &str, ClaimRank, Option<&str>, &str); 8] = [
            (
                Prepare::KIND,
                "prepare",
                ClaimRank::Starting,
                Some("video"),
                "render",
            ),
            (
                Generate::KIND,
                "generate",
                ClaimRank::Middle,
                Some("video"),
                "model",
            ),
            (
                Clip::KIND,
                "clip",
                ClaimRank::Middle,
                Some("video"),
                "render",
            ),
            (
                Stitch::KIND,
                "stitch",
                ClaimRank::Finishing,
                Some("video"),
                "render",
            ),
            (
                Combine::KIND,
                "combine",
                ClaimRank::Starting,
                Some("video"),
                "render",
            ),
            (
                Branding::KIND,
                "branding",
                ClaimRank::Finishing,
                Some("branding"),
                "render",
            ),
            (
                VideoWebhook::KIND,
                "video_webhook",
                ClaimRank::Finishing,
                None,
                "render",
            ),
            (
                BrandingWebhook::KIND,
                "branding_webhook",
                ClaimRank::Finishing,
                None,
                "render",
            ),
        ];
        for (kind, name, rank, makes, lane) in table {
            assert_eq!(
                (
                    kind.as_str(),
                    kind.claim_rank(),
                    kind.makes().stored(),
                    kind.lane().stored()
                ),
                (name, rank, makes, lane)
            );
            let stored = JobKind::from_stored(name, rank.value(), makes, lane);
            assert_eq!(stored, kind);
            assert_eq!(builtin().kind_for(stored), Some(kind));
        }
        assert_eq!(GENERATE.lane(), Lane::Model);
        assert_eq!(BRANDING.makes(), Makes::Branding);
        // The single render job of before the graph runs as a prepare.
        let old = JobKind::from_stored(
            "render",
            ClaimRank::Starting.value(),
            Some("video"),
            "render",
        );
        assert_eq!(builtin().kind_for(old), Some(Prepare::KIND));
    }
}
