//! Overall progress of a job, 0 to 100, from weighted steps; never goes down.

use std::sync::Mutex;

/// Share of the bar before rendering starts (downloads).
pub const FETCH_SHARE: f64 = 5.0;
/// Share of the bar for the final stitch (the rest is the clips, by frames).
pub const STITCH_SHARE: f64 = 5.0;

/// Reports a non-decreasing integer percentage to a callback.
pub struct Progress<'a> {
    last: Mutex<u8>,
    sink: &'a (dyn Fn(u8) + Send + Sync),
}

impl std::fmt::Debug for Progress<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("last", &self.last)
            .finish()
    }
}

impl<'a> Progress<'a> {
    pub fn new(sink: &'a (dyn Fn(u8) + Send + Sync)) -> Self {
        Progress {
            last: Mutex::new(0),
            sink,
        }
    }

    /// Reports `percent` (clamped to 0..=100) if it is higher than anything reported before.
    pub fn report(&self, percent: f64) {
        let value = percent.clamp(0.0, 100.0).floor() as u8;
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if value > *last {
            *last = value;
            (self.sink)(value);
        }
    }

    /// The highest value reported so far.
    pub fn current(&self) -> u8 {
        *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Percentage for `done` of `total` frames of the clip phase.
pub fn clip_phase(done: u64, total: u64) -> f64 {
    let span = 100.0 - FETCH_SHARE - STITCH_SHARE;
    FETCH_SHARE + span * (done as f64 / total.max(1) as f64).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn never_decreases_and_clamps() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink_seen = Arc::clone(&seen);
        let sink = move |v: u8| sink_seen.lock().expect("lock").push(v);
        let progress = Progress::new(&sink);
        for p in [3.0, 2.0, 10.5, 10.9, 150.0, 40.0, -5.0] {
            progress.report(p);
        }
        assert_eq!(*seen.lock().expect("lock"), vec![3, 10, 100]);
        assert_eq!(progress.current(), 100);
        assert!((clip_phase(0, 10) - FETCH_SHARE).abs() < 1e-9);
        assert!((clip_phase(10, 10) - (100.0 - STITCH_SHARE)).abs() < 1e-9);
    }
}
