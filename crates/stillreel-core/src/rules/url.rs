//! Media and template image URLs (docs/API-DESIGN.md#urls): absolute `http`/`https` with a host, at
//! most 2048 characters. Reachability is checked when the media is fetched, not here.
//!
//! Hand-written rather than the `url` crate: its IDNA tables would roughly double the wasm
//! module, and the rule needs only syntax. The fetcher parses with `url` again before it
//! connects, so nothing here is trusted for safety.

use crate::limits::MAX_URL_CHARS;

/// Why a URL was refused, as the sentence the field error carries.
pub fn check(url: &str) -> Result<(), &'static str> {
    // Nearly every URL is ASCII: one pass over its bytes, no Unicode tables. The general path
    // below gives the same answers (a property test holds them together); it walked the text
    // several times with char patterns and was a quarter of a 20-image validation.
    if url.is_ascii() {
        check_ascii(url.as_bytes())
    } else {
        check_general(url)
    }
}

fn check_ascii(url: &[u8]) -> Result<(), &'static str> {
    if url.len() > MAX_URL_CHARS {
        return Err(TOO_LONG);
    }
    if url.iter().any(|&b| b <= b' ' || b == 0x7f) {
        return Err(SPACED);
    }
    let rest = strip_scheme_ascii(url).ok_or(NOT_HTTP)?;
    let end = rest
        .iter()
        .position(|&b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    let authority = &rest[..end];
    if authority.contains(&b'@') {
        return Err(CREDENTIALS);
    }
    let (host, port) = if authority.first() == Some(&b'[') {
        // IPv6 literals are rare; the general code handles the brackets. The bytes are ASCII,
        // so they are valid UTF-8.
        let text = std::str::from_utf8(authority).map_err(|_| BAD_HOST)?;
        let (host, port) = split_port(text).ok_or(BAD_PORT)?;
        (host.as_bytes(), port.map(str::as_bytes))
    } else {
        match authority.iter().rposition(|&b| b == b':') {
            Some(colon) => (&authority[..colon], Some(&authority[colon + 1..])),
            None => (authority, None),
        }
    };
    if let Some(port) = port {
        // 1 to 5 digits, 1..=65535.
        if port.is_empty() || port.len() > 5 || !port.iter().all(u8::is_ascii_digit) {
            return Err(BAD_PORT);
        }
        let value = port
            .iter()
            .fold(0_u32, |n, &d| n * 10 + u32::from(d - b'0'));
        if value == 0 || value > 65_535 {
            return Err(BAD_PORT);
        }
    }
    if host.is_empty() {
        return Err(NO_HOST);
    }
    let valid = if host[0] == b'[' {
        std::str::from_utf8(host).is_ok_and(valid_host)
    } else {
        valid_ascii_name(host)
    };
    if valid { Ok(()) } else { Err(BAD_HOST) }
}

/// Letters, digits, '-', '_', '.' and percent-escapes; labels of 1 to 63 bytes; one trailing
/// dot allowed. The ASCII case of [`valid_host`], in one pass.
fn valid_ascii_name(host: &[u8]) -> bool {
    let name = host.strip_suffix(b".").unwrap_or(host);
    let mut label = 0_usize;
    for &b in name {
        if b == b'.' {
            if label == 0 {
                return false;
            }
            label = 0;
        } else if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'%') {
            label += 1;
            if label > 63 {
                return false;
            }
        } else {
            return false;
        }
    }
    label > 0
}

fn strip_scheme_ascii(url: &[u8]) -> Option<&[u8]> {
    [b"https://".as_slice(), b"http://".as_slice()]
        .into_iter()
        .find_map(|scheme| {
            url.get(..scheme.len())
                .filter(|prefix| prefix.eq_ignore_ascii_case(scheme))
                .map(|_| &url[scheme.len()..])
        })
}

const TOO_LONG: &str = "must be at most 2048 characters";
const SPACED: &str = "must not contain spaces or control characters";
const NOT_HTTP: &str = "must be an absolute http or https URL";
const CREDENTIALS: &str = "must not carry credentials (user:password@); use a signed URL instead";
const BAD_PORT: &str = "has an invalid port";
const NO_HOST: &str = "must name a host";
const BAD_HOST: &str = "has an invalid host name";

/// The rule for any text; [`check`] sends ASCII to [`check_ascii`].
fn check_general(url: &str) -> Result<(), &'static str> {
    if url.chars().count() > MAX_URL_CHARS {
        return Err(TOO_LONG);
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(SPACED);
    }
    let rest = strip_scheme(url).ok_or(NOT_HTTP)?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    if authority.contains('@') {
        return Err(CREDENTIALS);
    }
    let (host, port) = split_port(authority).ok_or(BAD_PORT)?;
    if let Some(port) = port {
        if port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()) {
            return Err(BAD_PORT);
        }
        if port.parse::<u32>().map_or(true, |p| p == 0 || p > 65_535) {
            return Err(BAD_PORT);
        }
    }
    if host.is_empty() {
        return Err(NO_HOST);
    }
    if !valid_host(host) {
        return Err(BAD_HOST);
    }
    Ok(())
}

fn strip_scheme(url: &str) -> Option<&str> {
    ["https://", "http://"].iter().find_map(|scheme| {
        url.get(..scheme.len())
            .filter(|prefix| prefix.eq_ignore_ascii_case(scheme))
            .map(|_| &url[scheme.len()..])
    })
}

/// Splits `host[:port]`, keeping bracketed IPv6 literals whole.
fn split_port(authority: &str) -> Option<(&str, Option<&str>)> {
    if let Some(inner) = authority.strip_prefix('[') {
        let close = inner.find(']')?;
        let host = &authority[..close + 2];
        let after = &inner[close + 1..];
        return match after {
            "" => Some((host, None)),
            _ => after.strip_prefix(':').map(|port| (host, Some(port))),
        };
    }
    Some(match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    })
}

fn valid_host(host: &str) -> bool {
    if let Some(inner) = host.strip_prefix('[') {
        let Some(literal) = inner.strip_suffix(']') else {
            return false;
        };
        return literal.parse::<std::net::Ipv6Addr>().is_ok();
    }
    // Registered names: letters (any script, for IDNs), digits, '-', '_', '.' and
    // percent-escapes; no empty labels.
    let name = host.strip_suffix('.').unwrap_or(host);
    !name.is_empty()
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && if label.is_ascii() {
                    label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'%'))
                } else {
                    label
                        .chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '%'))
                }
        })
}

#[cfg(test)]
mod tests {
    use super::{check, check_general};
    use proptest::prelude::*;

    proptest! {
        // The one-pass ASCII path answers exactly as the general rule, refusals included.
        #[test]
        fn ascii_path_agrees_with_the_general_rule(
            url in "(?i:(https?|ftp)://)?(\\[[0-9a-f:]{0,12}\\]|[a-z0-9._%@-]{0,20})(:[0-9a-z]{0,6})?([/?#][ -~]{0,20})?"
        ) {
            prop_assert_eq!(check(&url), check_general(&url), "{}", url);
        }

        #[test]
        fn ascii_path_agrees_on_any_ascii(url in "[ -~\\t\\x00\\x7f]{0,40}") {
            prop_assert_eq!(check(&url), check_general(&url), "{}", url);
        }
    }

    #[test]
    fn long_labels_and_ports_at_the_edges() {
        let label63 = "a".repeat(63);
        for url in [
            format!("https://{label63}.com/"),
            format!("https://{label63}a.com/"),
            "https://example.com:65535/".to_owned(),
            "https://example.com:65536/".to_owned(),
            "https://example.com:00080/".to_owned(),
            "https://example.com:000000/".to_owned(),
            "https://example.com../".to_owned(),
            "https://./".to_owned(),
            "https://[::1]:/".to_owned(),
            "https://[::1]x/".to_owned(),
        ] {
            assert_eq!(check(&url), check_general(&url), "{url}");
        }
    }

    #[test]
    fn accepts_ordinary_urls() {
        for url in [
            "https://example.com/a.jpg",
            "http://example.com",
            "HTTPS://EXAMPLE.COM/x?y=1#z",
            "https://cdn.example.com:8443/p/i.png",
            "https://[2001:db8::1]/a.png",
            "https://[2001:db8::1]:443/a.png",
            "https://xn--bcher-kva.example/a.webp",
            "https://bücher.example/a.webp",
            "https://s3.amazonaws.com/b/k.jpg?X-Amz-Signature=abc%20def",
            "http://127.0.0.1:8080/x.jpg",
            "https://example.com./a.jpg",
        ] {
            assert_eq!(check(url), Ok(()), "{url}");
        }
    }

    #[test]
    fn refuses_broken_urls() {
        for url in [
            "",
            "example.com/a.jpg",
            "ftp://example.com/a.jpg",
            "file:///etc/passwd",
            "https://",
            "https:///a.jpg",
            "https://exa mple.com/a.jpg",
            "https://example.com/a b.jpg",
            "https://user:pw@example.com/a.jpg",
            "https://example.com:0/a.jpg",
            "https://example.com:99999/a.jpg",
            "https://example.com:/a.jpg",
            "https://example.com:http/a.jpg",
            "https://[::1/a.jpg",
            "https://[zz::1]/a.jpg",
            "https://exa..mple.com/",
            "https://exa<mple.com/",
            "javascript:alert(1)",
            "data:image/png;base64,AAAA",
            "https://example.com/\u{0}",
        ] {
            assert!(check(url).is_err(), "{url:?} should be refused");
        }
    }

    #[test]
    fn length_limit_is_2048_characters() {
        let base = "https://example.com/";
        let ok = format!("{base}{}", "a".repeat(2048 - base.len()));
        assert_eq!(check(&ok), Ok(()));
        assert!(check(&format!("{ok}a")).is_err());
    }
}
