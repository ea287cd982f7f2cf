//! Carries what the renderer reports (progress, stored clips) into the database. The
//! renderer's observer is synchronous and called from the job's task; the writes happen on a
//! task of their own, progress coalesced to the latest value.

use stillreel_render::{RenderObserver, StoredClip};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::db::Db;
use crate::repo::render as repo;

/// Whose progress is reported.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    Video(Uuid),
    Branding(Uuid),
}

enum Note {
    Progress(u8),
    Clip { index: usize, key: String },
}

/// The observer handed to the renderer.
pub struct DbObserver {
    tx: mpsc::UnboundedSender<Note>,
    /// Per clip index: its id and the key an earlier attempt stored, if any.
    clips: Vec<(Uuid, Option<String>)>,
}

impl DbObserver {
    /// The observer and the task that writes its notes; the task ends once the observer is
    /// dropped and every note is written.
    pub fn spawn(
        db: Db,
        target: Target,
        clips: Vec<(Uuid, Option<String>)>,
    ) -> (DbObserver, JoinHandle<()>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let ids: Vec<Uuid> = clips.iter().map(|(id, _)| *id).collect();
        let writer = tokio::spawn(write_notes(db, target, ids, rx));
        (DbObserver { tx, clips }, writer)
    }
}

impl RenderObserver for DbObserver {
    fn progress(&self, percent: u8) {
        // 100 is written by completion itself, together with the status.
        let _ = self.tx.send(Note::Progress(percent.min(99)));
    }

    fn clip_stored(&self, clip: &StoredClip) {
        let _ = self.tx.send(Note::Clip {
            index: clip.index,
            key: clip.key.clone(),
        });
    }

    fn existing_clip(&self, index: usize) -> Option<String> {
        self.clips.get(index).and_then(|(_, key)| key.clone())
    }
}

async fn write_notes(
    db: Db,
    target: Target,
    ids: Vec<Uuid>,
    mut rx: mpsc::UnboundedReceiver<Note>,
) {
    while let Some(first) = rx.recv().await {
        let mut notes = vec![first];
        while let Ok(more) = rx.try_recv() {
            notes.push(more);
        }
        let latest = notes.iter().rev().find_map(|n| match n {
            Note::Progress(p) => Some(*p),
            Note::Clip { .. } => None,
        });
        for note in notes {
            if let Note::Clip { index, key } = note {
                let Some(&id) = ids.get(index) else { continue };
                if let Err(err) = repo::set_clip_rendered(&db, id, &key).await {
                    tracing::warn!(clip = %id, error = %err, "recording a rendered clip failed");
                }
            }
        }
        if let Some(p) = latest {
            let result = match target {
                Target::Video(v) => repo::set_video_progress(&db, v, p).await,
                Target::Branding(v) => repo::set_branding_progress(&db, v, p).await,
            };
            if let Err(err) = result {
                tracing::warn!(error = %err, "recording progress failed");
            }
        }
    }
}
