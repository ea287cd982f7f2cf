//! What the preview made recently, kept for the next rebuild: a form rebuilds its preview on
//! every change (a caption typed, a transition picked), and decoding and framing each photo
//! again would cost tens to hundreds of milliseconds a photo. A photo's framed picture (its
//! canvas and depth field, [`Picture`]) is kept by the photo's fingerprint and length, the
//! framing, and the depth map's fingerprint, length and polarity.
//! The fingerprint is the `auto` rule's FNV-1a of the file, which the page computes once per
//! file it holds (the `fingerprint` export of the bindings).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use std::sync::Arc;

use stillreel_camera::clip::Picture;
use stillreel_camera::depth::DepthPolarity;
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

/// A framed picture: by the photo (fingerprint and length), how it is framed, and its depth
/// map (fingerprint, length, polarity) if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PictureKey {
    pub digest: u64,
    pub len: usize,
    pub size: (u32, u32),
    pub fit: Fit,
    pub depth: Option<(u64, usize, DepthPolarity)>,
}

/// A framed picture, or `None` when the photo did not decode.
pub type Framed = Option<Arc<Picture>>;

thread_local! {
    static PICTURES: RefCell<Recent<PictureKey, Framed>> = const { RefCell::new(Recent::new()) };
}

/// The picture for `key`, made by `make` unless it was made recently.
pub fn picture(key: PictureKey, make: impl FnOnce() -> Framed) -> Rc<Framed> {
    PICTURES.with(|c| c.borrow_mut().get_or(key, make))
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
