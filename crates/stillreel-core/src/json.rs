//! A borrowed JSON tree for validation, allocated in one arena.
//!
//! `serde_json::Value` allocates every string and a B-tree node per object member; parsing into
//! it took two thirds of the validation budget, and freeing it another tenth. This tree lives in
//! a `bumpalo` arena sized from the input (usually a single allocation, freed at once), borrows
//! unescaped strings straight from the input, and keeps object members as a slice in document
//! order: objects here have a handful of members, so a linear scan beats a map. Duplicate
//! members resolve like `serde_json`: the last one wins.

use std::fmt;

use bumpalo::Bump;
use bumpalo::collections::Vec as BumpVec;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// One JSON value. Numbers keep no value: no rule reads one, they only get `invalid_type`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Json<'d> {
    Null,
    Bool(bool),
    Number,
    String(&'d str),
    Array(&'d [Json<'d>]),
    Object(Object<'d>),
}

/// An object's members in document order.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Object<'d>(&'d [(&'d str, Json<'d>)]);

impl<'d> Object<'d> {
    /// The member's value; the last one when the key repeats.
    pub(crate) fn get(&self, key: &str) -> Option<&'d Json<'d>> {
        self.0.iter().rev().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| *k == key)
    }

    /// The index and value of the member named `key`: the last one when the key repeats,
    /// like [`Object::get`].
    pub(crate) fn position(&self, key: &str) -> Option<(usize, &'d Json<'d>)> {
        let i = self.0.iter().rposition(|(k, _)| *k == key)?;
        Some((i, &self.0[i].1))
    }

    /// The `i`-th member's value in document order.
    pub(crate) fn member(&self, i: usize) -> Option<&'d Json<'d>> {
        self.0.get(i).map(|(_, v)| v)
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Member names in document order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &'d str> {
        self.0.iter().map(|(k, _)| *k)
    }

    /// Members in document order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'d str, &'d Json<'d>)> {
        self.0.iter().map(|(k, v)| (*k, v))
    }
}

impl Json<'_> {
    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }
}

/// An arena sized for parsing `text`: the tree takes a few times the text's size.
pub(crate) fn arena_for(text: &str) -> Bump {
    Bump::with_capacity(text.len().saturating_mul(4).clamp(1024, 1 << 22))
}

/// Parses JSON text into `arena`, borrowing unescaped strings from the text.
pub(crate) fn parse<'d>(text: &'d str, arena: &'d Bump) -> Result<Json<'d>, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Seed(arena).deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// `text` as this reader sees it, as a `serde_json::Value` with every number `0` (the tree
/// keeps no number values) and repeated members resolved, last one wins. It exists so a
/// differential fuzz target can hold this reader to `serde_json`'s: same texts accepted,
/// same tree.
pub fn view(text: &str) -> Result<serde_json::Value, String> {
    fn convert(value: &Json<'_>) -> serde_json::Value {
        match value {
            Json::Null => serde_json::Value::Null,
            Json::Bool(b) => serde_json::Value::Bool(*b),
            Json::Number => serde_json::Value::from(0),
            Json::String(s) => serde_json::Value::String((*s).to_owned()),
            Json::Array(items) => serde_json::Value::Array(items.iter().map(convert).collect()),
            Json::Object(object) => {
                let mut map = serde_json::Map::new();
                for (key, value) in object.iter() {
                    map.insert(key.to_owned(), convert(value));
                }
                serde_json::Value::Object(map)
            }
        }
    }
    let arena = arena_for(text);
    parse(text, &arena)
        .map(|tree| convert(&tree))
        .map_err(|e| e.to_string())
}

/// Deserializes one value into the arena.
#[derive(Clone, Copy)]
struct Seed<'d>(&'d Bump);

impl<'de: 'd, 'd> DeserializeSeed<'de> for Seed<'d> {
    type Value = Json<'d>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de: 'd, 'd> Visitor<'de> for Seed<'d> {
    type Value = Json<'d>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Json::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Json::Number)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Json::Number)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Json::Number)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Json::String(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Json::String(self.0.alloc_str(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = BumpVec::with_capacity_in(seq.size_hint().unwrap_or(4), self.0);
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Json::Array(items.into_bump_slice()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members = BumpVec::with_capacity_in(map.size_hint().unwrap_or(4), self.0);
        while let Some(key) = map.next_key_seed(Key(self.0))? {
            members.push((key, map.next_value_seed(self)?));
        }
        Ok(Json::Object(Object(members.into_bump_slice())))
    }
}

/// A member name, borrowed when it has no escapes, else copied into the arena.
struct Key<'d>(&'d Bump);

impl<'de: 'd, 'd> DeserializeSeed<'de> for Key<'d> {
    type Value = &'d str;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de: 'd, 'd> Visitor<'de> for Key<'d> {
    type Value = &'d str;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.0.alloc_str(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrows_plain_strings_and_copies_escaped_ones() {
        let text = r#"{"a": "plain", "b": "esc\"aped", "c": [1, true, null]}"#;
        let arena = arena_for(text);
        let Ok(Json::Object(o)) = parse(text, &arena) else {
            panic!("an object")
        };
        assert!(
            matches!(o.get("a"), Some(Json::String(s)) if std::ptr::eq(s.as_ptr(), text[7..].as_ptr()))
        );
        assert!(matches!(o.get("b"), Some(Json::String("esc\"aped"))));
        assert_eq!(
            o.get("c"),
            Some(&Json::Array(&[Json::Number, Json::Bool(true), Json::Null]))
        );
        assert_eq!(o.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
    }

    #[test]
    fn last_duplicate_wins_like_serde_json() {
        let text = r#"{"k": 1, "k": "two"}"#;
        let arena = arena_for(text);
        let Ok(Json::Object(o)) = parse(text, &arena) else {
            panic!("an object")
        };
        assert!(matches!(o.get("k"), Some(Json::String("two"))));
    }

    #[test]
    fn rejects_what_serde_json_rejects() {
        for bad in [
            "",
            "{",
            "{'a': 1}",
            "[1,]",
            "{\"a\" 1}",
            "nul",
            "\"\\x\"",
            "{} {}",
            "[1] x",
        ] {
            let arena = arena_for(bad);
            assert!(parse(bad, &arena).is_err(), "{bad}");
            assert!(
                serde_json::from_str::<serde_json::Value>(bad).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let text = "[".repeat(100_000);
        let arena = arena_for(&text);
        assert!(parse(&text, &arena).is_err());
    }
}
