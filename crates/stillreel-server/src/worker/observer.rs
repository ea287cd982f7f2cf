//! Carries what a render step reports (its progress) into the database. The renderer's
//! observer is synchronous and called from the job's task; the writes happen on a task of
//! their own, coalesced to the latest value. Every kind that reports progress runs its step
//! through [`observed`].

use stillreel_render::RenderObserver;
use tokio::sync::mpsc;
use uuid::Uuid;

use crate::db::Db;
use crate::repo::{graph, render as repo};

/// Whose progress is reported, and how a step's 0–100 maps onto it.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    /// The video's own bar, `from` to `from + span` (prepare, stitch, combine).
    Video {
        video: Uuid,
        from: u8,
        span: u8,
    },
    /// One clip: its own progress, from which the video's is computed over all its clips.
    Clip {
        video: Uuid,
        clip: Uuid,
    },
    Branding(Uuid),
}

/// The observer handed to the renderer: the sending end of [`observed`]'s writer.
#[derive(Debug)]
pub struct DbObserver {
    tx: mpsc::UnboundedSender<u8>,
}

/// Runs a render step (`step`, handed the observer) with its progress written to `target`,
/// and waits until every note is written before answering the step's result: the kinds'
/// one way of reporting progress.
pub async fn observed<F: Future>(
    db: &Db,
    target: Target,
    step: impl FnOnce(DbObserver) -> F,
) -> F::Output {
    let (tx, rx) = mpsc::unbounded_channel();
    let writer = tokio::spawn(write_notes(db.clone(), target, rx));
    let result = step(DbObserver { tx }).await;
    // The step's future, and the observer it owned, are gone: the writer ends after the last
    // note.
    let _ = writer.await;
    result
}

impl RenderObserver for DbObserver {
    fn progress(&self, percent: u8) {
        let _ = self.tx.send(percent.min(100));
    }
}

/// `percent` of a step mapped onto `span` points from `from`; below 100 (completion writes
/// 100 itself, together with the status).
fn scaled(from: u8, span: u8, percent: u8) -> u8 {
    let points = u16::from(span) * u16::from(percent.min(100)) / 100;
    u8::try_from(u16::from(from) + points).unwrap_or(99).min(99)
}

async fn write_notes(db: Db, target: Target, mut rx: mpsc::UnboundedReceiver<u8>) {
    while let Some(mut latest) = rx.recv().await {
        while let Ok(more) = rx.try_recv() {
            latest = more;
        }
        let result = match target {
            Target::Video { video, from, span } => {
                repo::set_video_progress(&db, video, scaled(from, span, latest))
                    .await
                    .map(drop)
            }
            Target::Clip { video, clip } => {
                graph::set_clip_progress(&db, video, clip, latest.min(99)).await
            }
            Target::Branding(v) => repo::set_branding_progress(&db, v, latest.min(99))
                .await
                .map(drop),
        };
        if let Err(err) = result {
            tracing::warn!(error = %err, "recording progress failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::scaled;

    #[test]
    fn step_progress_maps_onto_its_share_below_100() {
        assert_eq!(scaled(0, 5, 0), 0);
        assert_eq!(scaled(0, 5, 100), 5);
        assert_eq!(scaled(95, 4, 50), 97);
        assert_eq!(scaled(0, 100, 100), 99);
    }
}
