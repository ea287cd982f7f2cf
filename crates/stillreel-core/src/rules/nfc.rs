//! Unicode NFC from the canonical primitives of `unicode-normalization`.
//!
//! Why not `str::nfc()`: its iterator chooses canonical or compatibility decomposition at run
//! time, so every build that calls it links the compatibility tables too (about 90 KB of the
//! wasm module's 150 KiB budget) although NFC never uses them. This is the same algorithm
//! (UAX #15: full canonical decomposition, canonical ordering, canonical composition) over the
//! same tables; `matches_the_crate` checks it against `nfc()` on random text.

use unicode_normalization::char::{canonical_combining_class, compose, decompose_canonical};

/// `text` in Normalization Form C.
pub fn nfc(text: &str) -> String {
    let mut chars: Vec<char> = Vec::with_capacity(text.len());
    for c in text.chars() {
        decompose_canonical(c, |d| chars.push(d));
    }
    canonical_order(&mut chars);
    compose_all(&chars)
}

/// Sorts each run of non-starters by combining class, keeping equal classes in order.
fn canonical_order(chars: &mut [char]) {
    let mut i = 0;
    while i < chars.len() {
        if canonical_combining_class(chars[i]) == 0 {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && canonical_combining_class(chars[i]) != 0 {
            i += 1;
        }
        chars[start..i].sort_by_key(|&c| canonical_combining_class(c));
    }
}

/// Canonical composition: each character joins the last starter unless a character between
/// them blocks it (a starter, or a class at least as high as its own).
fn compose_all(chars: &[char]) -> String {
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let mut starter: Option<usize> = None;
    // Class of the last character kept since the starter; `None` when adjacent to it.
    let mut last_class: Option<u8> = None;
    for &c in chars {
        let class = canonical_combining_class(c);
        if let Some(at) = starter {
            let blocked = last_class.is_some_and(|last| last == 0 || last >= class);
            if !blocked && let Some(composed) = compose(out[at], c) {
                out[at] = composed;
                continue;
            }
        }
        if class == 0 {
            starter = Some(out.len());
            last_class = None;
        } else {
            last_class = Some(class);
        }
        out.push(c);
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use unicode_normalization::UnicodeNormalization;

    use super::nfc;

    /// Characters where normalization does something: Latin, combining marks, Greek, Hangul
    /// syllables and jamo, singletons (Ohm, Angstrom, Kelvin), Devanagari nukta, and anything.
    fn interesting() -> impl Strategy<Value = char> {
        prop_oneof![
            proptest::char::range('A', 'z'),
            proptest::char::range('\u{00C0}', '\u{024F}'),
            proptest::char::range('\u{0300}', '\u{036F}'),
            proptest::char::range('\u{0370}', '\u{03FF}'),
            proptest::char::range('\u{1E00}', '\u{1FFF}'),
            proptest::char::range('\u{1100}', '\u{11FF}'),
            proptest::char::range('\u{AC00}', '\u{AC40}'),
            proptest::char::range('\u{2120}', '\u{212F}'),
            proptest::char::range('\u{0900}', '\u{097F}'),
            proptest::char::range('\u{0B00}', '\u{0B7F}'),
            proptest::char::range('\u{20D0}', '\u{20FF}'),
            any::<char>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        #[test]
        fn matches_the_crate(chars in proptest::collection::vec(interesting(), 0..24)) {
            let text: String = chars.into_iter().collect();
            prop_assert_eq!(nfc(&text), text.nfc().collect::<String>());
        }
    }

    #[test]
    fn known_forms() {
        for text in [
            "Cafe\u{0301}",
            "\u{212B}ngstr\u{00F6}m",
            "\u{1100}\u{1161}\u{11A8}",
            "a\u{0323}\u{0302}",
            "\u{0301}x",
            "e\u{0327}\u{0301}\u{0301}",
            "a\u{0346}\u{0301}",
            "\u{0B47}\u{0B3E}",
        ] {
            assert_eq!(nfc(text), text.nfc().collect::<String>(), "{text:?}");
        }
        assert_eq!(nfc("Cafe\u{0301}"), "Café");
    }
}
