//! Escaping for ffmpeg filtergraphs, in one place.
//!
//! A filter's arguments are unescaped twice (ffmpeg "Quoting and escaping"):
//! 1. the graph parser reads `name=args` up to an unescaped `[ ] , ;` and removes one level of
//!    `\` escapes and `'` quotes ([`graph_level`]);
//! 2. the filter splits `args` into `key=value` pairs at unescaped `:` and removes a second level
//!    ([`option_value`]).
//!
//! Every argument we emit goes through [`Filter`], which applies both, so user text (word-drop,
//! template fields) and expressions with commas can never break out of their option. drawtext is
//! always given `expansion=none`, so `%` and `{` are literal and need no third level.

use std::fmt::{self, Write as _};

/// Level 2 of the table above: escapes one option value for the filter's own `key=value` parser.
/// Values with nothing special pass through unchanged; others are wrapped in `'...'`, where only a
/// quote needs care (closed, escaped, reopened: `'\''`).
pub fn option_value(value: &str) -> String {
    let plain = !value.is_empty()
        && !value.contains(['\\', '\'', ':', '='])
        && !value.starts_with(char::is_whitespace)
        && !value.ends_with(char::is_whitespace);
    if plain {
        return value.to_owned();
    }
    let mut out = String::with_capacity(value.len() + 2);
    out.push('\'');
    for c in value.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// Level 1 of the table above: escapes a filter's whole argument string for the graph parser.
pub fn graph_level(args: &str) -> String {
    let mut out = String::with_capacity(args.len() + 8);
    for c in args.chars() {
        if matches!(c, '\\' | '\'' | '[' | ']' | ',' | ';') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One filter with its arguments, escaped on display: `Filter::new("drawtext").arg("text", t)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    name: &'static str,
    args: Vec<(&'static str, String)>,
}

impl Filter {
    pub fn new(name: &'static str) -> Self {
        Filter {
            name,
            args: Vec::new(),
        }
    }

    /// Adds `key=value`; the value is escaped for both levels when displayed.
    pub fn arg(mut self, key: &'static str, value: impl fmt::Display) -> Self {
        self.args.push((key, value.to_string()));
        self
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)?;
        if self.args.is_empty() {
            return Ok(());
        }
        let mut args = String::new();
        for (i, (k, v)) in self.args.iter().enumerate() {
            if i > 0 {
                args.push(':');
            }
            let _ = write!(args, "{k}={}", option_value(v));
        }
        write!(f, "={}", graph_level(&args))
    }
}

/// A chain of filters joined by `,`, between pads: `[a]f1,f2[b]`.
pub fn chain(input: &[&str], filters: &[Filter], output: &[&str]) -> String {
    let mut out = String::new();
    for pad in input {
        let _ = write!(out, "[{pad}]");
    }
    for (i, f) in filters.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{f}");
    }
    for pad in output {
        let _ = write!(out, "[{pad}]");
    }
    out
}

/// An ffmpeg colour with alpha: `0xRRGGBB@0.50`. `hex` is `#rrggbb` or `rrggbb`; anything else
/// falls back to white so a bad template colour cannot break the graph.
pub fn color(hex: &str, alpha: f32) -> String {
    let h = hex.trim_start_matches('#');
    let valid = h.len() == 6 && h.chars().all(|c| c.is_ascii_hexdigit());
    let h = if valid { h } else { "ffffff" };
    format!("0x{h}@{:.3}", alpha.clamp(0.0, 1.0))
}

/// Parses `#rrggbb` into RGB bytes (white when invalid).
pub fn rgb(hex: &str) -> (u8, u8, u8) {
    let h = hex.trim_start_matches('#');
    let byte = |i: usize| h.get(i..i + 2).and_then(|s| u8::from_str_radix(s, 16).ok());
    match (h.len(), byte(0), byte(2), byte(4)) {
        (6, Some(r), Some(g), Some(b)) => (r, g, b),
        _ => (255, 255, 255),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_values_pass_through() {
        assert_eq!(option_value("48"), "48");
        assert_eq!(option_value("Hello"), "Hello");
        assert_eq!(option_value("w-tw"), "w-tw");
    }

    #[test]
    fn special_values_are_quoted() {
        assert_eq!(option_value("a:b"), "'a:b'");
        assert_eq!(option_value("it's"), "'it'\\''s'");
        assert_eq!(option_value(r"c:\x"), r"'c:\x'");
        assert_eq!(option_value(" lead"), "' lead'");
        assert_eq!(option_value(""), "''");
        assert_eq!(option_value("k=v"), "'k=v'");
    }

    #[test]
    fn graph_level_escapes_separators() {
        assert_eq!(graph_level("a,b;c[d]e'f\\g"), r"a\,b\;c\[d\]e\'f\\g");
        assert_eq!(graph_level("100% café"), "100% café");
    }

    #[test]
    fn filter_display_applies_both_levels() {
        let f = Filter::new("drawtext")
            .arg("text", "Don't: 100%, [ok]")
            .arg("x", "if(lt(t,1),0,w)");
        assert_eq!(
            f.to_string(),
            r"drawtext=text=\'Don\'\\\'\'t: 100%\, \[ok\]\':x=if(lt(t\,1)\,0\,w)"
        );
        assert_eq!(Filter::new("null").to_string(), "null");
    }

    #[test]
    fn colors() {
        assert_eq!(color("#d4af37", 0.5), "0xd4af37@0.500");
        assert_eq!(color("nope", 2.0), "0xffffff@1.000");
        assert_eq!(rgb("#102030"), (16, 32, 48));
        assert_eq!(rgb("#1020"), (255, 255, 255));
    }
}
