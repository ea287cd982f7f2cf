//! What a damaged HEIF file is called, and the bounded reads both of its readers (`header`,
//! `items`) make through the providers crate's box walker.

use stillreel_providers::bmff::{self, BmffBox, BoxError};

/// Why a header could not be read: a sentence fragment for the user ("the HEIC picture is
/// damaged: {0}").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Damaged(pub &'static str);

/// The boxes laid end to end in `data`; one that claims more bytes than there are is damage.
pub(super) fn boxes(data: &[u8]) -> Result<Vec<BmffBox<'_>>, Damaged> {
    bmff::boxes(data).collect::<Result<_, _>>().map_err(damage)
}

/// A box that cannot be read, as the user is told.
pub(super) fn damage(error: BoxError) -> Damaged {
    match error {
        BoxError::Cut => Damaged("a box runs past the end of the file"),
        BoxError::TooSmall => Damaged("a box declares an impossible size"),
    }
}

/// What a read past the end of a box's contents is called.
pub(super) const SHORT: Damaged = Damaged("a box is shorter than its contents");

pub(super) fn byte(data: &[u8], at: usize) -> Result<u8, Damaged> {
    data.get(at).copied().ok_or(SHORT)
}

pub(super) fn be_u16(data: &[u8], at: usize) -> Result<u16, Damaged> {
    bmff::u16_at(data, at).ok_or(SHORT)
}

pub(super) fn be_u32(data: &[u8], at: usize) -> Result<u32, Damaged> {
    bmff::u32_at(data, at).ok_or(SHORT)
}
