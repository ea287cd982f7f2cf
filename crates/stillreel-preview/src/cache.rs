//! What the preview made recently, kept for the next rebuild: a form rebuilds its preview on
//! every change (a caption typed, a transition picked), and decoding and framing each photo
//! again would cost tens to hundreds of milliseconds a photo. A photo's canvas is kept by its
//! fingerprint, length and framing; a depth field by its canvas and the map's fingerprint.
//! The fingerprint is the `auto` rule's FNV-1a of the file, which the page computes once per
//! file it holds (the `fingerprint` export of the bindings).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use stillreel_camera::depth::{DepthField, DepthPolarity};
use stillreel_camera::draw::warp::Canvas;
use stillreel_camera::input::framing::Placement;
use stillreel_core::Fit;

/// Entries each cache keeps: a video's photos (up to 20) and a few framings more. A 640 × 360
/// canvas is 0.35 MB.
const KEEP: usize = 32;

/// The `keep` entries used last, oldest first.
#[derive(Debug)]
struct Recent<K, V> {
    entries: VecDeque<(K, Rc<V>)>,
}

impl<K: PartialEq, V> Recent<K, V> {
    const fn new() -> Self {
        Recent {
            entries: VecDeque::new(),
        }
    }

    fn get_or(&mut self, key: K, make: impl FnOnce() -> V) -> Rc<V> {
        if let Some(i) = self.entries.iter().position(|(k, _)| *k == key) {
            let entry = self.entries.remove(i).expect("found");
            let value = Rc::clone(&entry.1);
            self.entries.push_back(entry);
            return value;
        }
        let value = Rc::new(make());
        if self.entries.len() >= KEEP {
            self.entries.pop_front();
        }
        self.entries.push_back((key, Rc::clone(&value)));
        value
    }
}

/// A photo's canvas: by the photo (fingerprint and length) and how it is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CanvasKey {
    pub digest: u64,
    pub len: usize,
    pub size: (u32, u32),
    pub fit: Fit,
}

/// A canvas and where the photo lies on it, or why there is none.
pub type Framed = Option<(Canvas, Placement)>;

/// A depth field: by its canvas and the map (fingerprint, length, polarity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthKey {
    pub canvas: CanvasKey,
    pub digest: u64,
    pub len: usize,
    pub polarity: DepthPolarity,
}

/// A prepared depth field, or the reason the map is not used.
pub type Field = Result<DepthField, String>;

thread_local! {
    static CANVASES: RefCell<Recent<CanvasKey, Framed>> = const { RefCell::new(Recent::new()) };
    static FIELDS: RefCell<Recent<DepthKey, Field>> = const { RefCell::new(Recent::new()) };
}

/// The canvas for `key`, made by `make` unless it was made recently.
pub fn canvas(key: CanvasKey, make: impl FnOnce() -> Framed) -> Rc<Framed> {
    CANVASES.with(|c| c.borrow_mut().get_or(key, make))
}

/// The depth field for `key`, made by `make` unless it was made recently.
pub fn field(key: DepthKey, make: impl FnOnce() -> Field) -> Rc<Field> {
    FIELDS.with(|c| c.borrow_mut().get_or(key, make))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_used_entries_stay_and_the_oldest_goes() {
        let mut recent = Recent::new();
        let mut made = 0;
        for i in 0..KEEP {
            recent.get_or(i, || {
                made += 1;
                i
            });
        }
        // Used again: not made again, and now the newest.
        assert_eq!(*recent.get_or(0, || unreachable!()), 0);
        recent.get_or(KEEP, || KEEP);
        // 1 was the oldest: made again; 0 was kept.
        let mut again = false;
        recent.get_or(1, || {
            again = true;
            1
        });
        assert!(again);
        assert_eq!(*recent.get_or(0, || unreachable!()), 0);
        assert_eq!(made, KEEP);
    }
}
