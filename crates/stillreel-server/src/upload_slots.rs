//! How many uploads each account is sending at once, against
//! `STILLREEL_HTTP_ACCOUNT_UPLOADS`: an upload may take minutes, so without a cap one key's
//! slow uploads could hold every connection the server serves (docs/SECURITY.md).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use uuid::Uuid;

/// The uploads in progress, by account.
#[derive(Debug)]
pub struct UploadSlots {
    held: Mutex<HashMap<Uuid, usize>>,
    per_account: usize,
}

/// One upload's place; given back when dropped (the upload ended, or its client hung up).
#[derive(Debug)]
pub struct Slot {
    slots: Arc<UploadSlots>,
    account: Uuid,
}

impl UploadSlots {
    pub fn new(per_account: usize) -> Arc<Self> {
        Arc::new(UploadSlots {
            held: Mutex::new(HashMap::new()),
            per_account,
        })
    }

    /// A place for an upload of `account`; `None` when it already sends `per_account`.
    pub fn try_take(self: &Arc<Self>, account: Uuid) -> Option<Slot> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let n = held.entry(account).or_insert(0);
        if *n >= self.per_account {
            return None;
        }
        *n += 1;
        Some(Slot {
            slots: Arc::clone(self),
            account,
        })
    }

    /// The cap per account.
    pub fn per_account(&self) -> usize {
        self.per_account
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut held = self.slots.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = held.get_mut(&self.account) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                held.remove(&self.account);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_account_has_its_own_places_given_back_on_drop() {
        let slots = UploadSlots::new(2);
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let first = slots.try_take(a).expect("first");
        let second = slots.try_take(a).expect("second");
        assert!(slots.try_take(a).is_none(), "a third of the same account");
        assert!(slots.try_take(b).is_some(), "another account");
        drop(first);
        let third = slots.try_take(a).expect("a place was given back");
        drop((second, third));
        assert!(slots.held.lock().expect("lock").is_empty());
    }
}
