//! [`RenderObserver`]: what the job runner learns while a render runs, and the adapters that map
//! one step's progress onto a share of a whole job's bar.

pub mod progress;

use std::sync::{Mutex, PoisonError};

use self::progress::Progress;
use crate::job::StoredClip;

/// What the job runner learns while a video renders.
pub trait RenderObserver: Send + Sync {
    /// Overall progress, 0 to 100, never decreasing.
    fn progress(&self, _percent: u8) {}
    /// A clip has been stored (so `video_clips` can list it at once).
    fn clip_stored(&self, _clip: &StoredClip) {}
    /// The storage key of clip `index` if an earlier attempt already stored it: it is reused,
    /// not rendered again.
    fn existing_clip(&self, _index: usize) -> Option<String> {
        None
    }
}

/// An observer that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;
impl RenderObserver for NoObserver {}

/// Maps one step's progress (0 to 100) onto `span` percent of the bar, from `from`.
pub(crate) struct Share<'a> {
    pub bar: &'a Progress<'a>,
    pub from: f64,
    pub span: f64,
}

impl RenderObserver for Share<'_> {
    fn progress(&self, percent: u8) {
        self.bar
            .report(self.from + self.span * f64::from(percent) / 100.0);
    }
}

/// One clip's progress: the bar shows the mean of all clips over the clip phase.
pub(crate) struct ClipShare<'a> {
    pub bar: &'a Progress<'a>,
    pub per_clip: &'a Mutex<Vec<u8>>,
    pub index: usize,
}

impl RenderObserver for ClipShare<'_> {
    fn progress(&self, percent: u8) {
        let mut all = self.per_clip.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = all.get_mut(self.index) {
            *slot = (*slot).max(percent);
        }
        let done: u64 = all.iter().map(|p| u64::from(*p)).sum();
        let total = 100 * all.len() as u64;
        drop(all);
        self.bar.report(progress::clip_phase(done, total));
    }
}
