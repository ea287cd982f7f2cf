//! Media and template image URLs (CONTRACT §6): absolute `http`/`https` with a host, at most
//! 2048 characters. Reachability is checked when the media is fetched, not here.
//!
//! Hand-written rather than the `url` crate: its IDNA tables would roughly double the wasm
//! module, and the rule needs only syntax. The fetcher parses with `url` again before it
//! connects, so nothing here is trusted for safety.

use crate::limits::MAX_URL_CHARS;

/// Why a URL was refused, as the sentence the field error carries.
pub fn check(url: &str) -> Result<(), &'static str> {
    // Nearly every URL is ASCII: check it byte by byte and skip the Unicode tables.
    let (too_long, spaced) = if url.is_ascii() {
        (
            url.len() > MAX_URL_CHARS,
            url.bytes().any(|b| b <= b' ' || b == 0x7f),
        )
    } else {
        (
            url.chars().count() > MAX_URL_CHARS,
            url.chars().any(|c| c.is_whitespace() || c.is_control()),
        )
    };
    if too_long {
        return Err("must be at most 2048 characters");
    }
    if spaced {
        return Err("must not contain spaces or control characters");
    }
    let rest = strip_scheme(url).ok_or("must be an absolute http or https URL")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    if authority.contains('@') {
        return Err("must not carry credentials (user:password@); use a signed URL instead");
    }
    let (host, port) = split_port(authority).ok_or("has an invalid port")?;
    if let Some(port) = port {
        if port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()) {
            return Err("has an invalid port");
        }
        if port.parse::<u32>().map_or(true, |p| p == 0 || p > 65_535) {
            return Err("has an invalid port");
        }
    }
    if host.is_empty() {
        return Err("must name a host");
    }
    if !valid_host(host) {
        return Err("has an invalid host name");
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
    use super::check;

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
