//! `STILLREEL_FETCH_ALLOW`: host names, IP addresses and CIDR blocks exempt from the
//! public-address rule, for local testing and private deployments.

use std::net::IpAddr;

/// A parsed allow-list. Empty by default: nothing non-public is reachable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList {
    hosts: Vec<String>,
    nets: Vec<(IpAddr, u8)>,
}

/// An allow-list entry that is neither a host name, an IP address nor a CIDR block: the
/// entry, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("entry {0:?} {1}")]
pub struct BadAllowEntry(pub String, pub &'static str);

/// Why most entries are refused.
const NOT_AN_ENTRY: &str = "is not a host name, IP address or CIDR block";
/// Why `host:port` is refused: an entry names a host for every port, and a port written
/// there would read as a promise the list does not keep.
const HAS_A_PORT: &str = "has a port: an entry is a host name, IP address or CIDR block and \
    covers every port of that host, so leave the port out (e.g. localhost, not localhost:8091)";

impl AllowList {
    /// Parses the comma-separated variable value; blanks around entries are ignored.
    pub fn parse(text: &str) -> Result<Self, BadAllowEntry> {
        let mut list = AllowList::default();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            list.add(entry)?;
        }
        Ok(list)
    }

    fn add(&mut self, entry: &str) -> Result<(), BadAllowEntry> {
        let bad = || BadAllowEntry(entry.to_owned(), NOT_AN_ENTRY);
        if has_port(entry) {
            return Err(BadAllowEntry(entry.to_owned(), HAS_A_PORT));
        }
        if let Some((addr, bits)) = entry.split_once('/') {
            let ip: IpAddr = addr.parse().map_err(|_| bad())?;
            let bits: u8 = bits.parse().map_err(|_| bad())?;
            let max = if ip.is_ipv4() { 32 } else { 128 };
            if bits > max {
                return Err(bad());
            }
            self.nets.push((ip, bits));
        } else if let Ok(ip) = entry.trim_matches(['[', ']']).parse::<IpAddr>() {
            self.nets.push((ip, if ip.is_ipv4() { 32 } else { 128 }));
        } else if entry
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        {
            self.hosts
                .push(entry.trim_end_matches('.').to_ascii_lowercase());
        } else {
            return Err(bad());
        }
        Ok(())
    }

    /// Whether the host name (as written in the URL, not resolved) is listed.
    pub fn allows_host(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.hosts.contains(&host)
    }

    /// Whether the address lies in a listed address or block. An IPv4-mapped IPv6 address is
    /// matched as its IPv4 form.
    pub fn allows_ip(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        self.nets.iter().any(|&(net, bits)| in_net(ip, net, bits))
    }

    /// Whether nothing is listed.
    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty() && self.nets.is_empty()
    }
}

/// Whether an entry is written `host:port`, `ipv4:port` or `[ipv6]:port`.
fn has_port(entry: &str) -> bool {
    let port = match entry.rsplit_once("]:") {
        Some((_, port)) if entry.starts_with('[') => port,
        _ => match entry.split_once(':') {
            // More than one colon without brackets: an IPv6 address, judged as one.
            Some((_, port)) if !port.contains(':') => port,
            _ => return false,
        },
    };
    !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
}

fn in_net(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("test address parses")
    }

    #[test]
    fn parses_hosts_ips_and_blocks() {
        let list = AllowList::parse(" media.local , 127.0.0.1,10.0.0.0/8, fd00::/8,[::1]")
            .expect("valid list");
        assert!(list.allows_host("MEDIA.local."));
        assert!(!list.allows_host("other.local"));
        assert!(list.allows_ip(ip("127.0.0.1")));
        assert!(list.allows_ip(ip("::ffff:127.0.0.1")));
        assert!(!list.allows_ip(ip("127.0.0.2")));
        assert!(list.allows_ip(ip("10.200.3.4")));
        assert!(!list.allows_ip(ip("11.0.0.1")));
        assert!(list.allows_ip(ip("fd12::1")));
        assert!(list.allows_ip(ip("::1")));
        assert!(!list.allows_ip(ip("::2")));
    }

    #[test]
    fn zero_prefix_allows_everything_of_its_family() {
        let list = AllowList::parse("0.0.0.0/0").expect("valid list");
        assert!(list.allows_ip(ip("192.168.0.1")));
        assert!(!list.allows_ip(ip("fe80::1")));
    }

    #[test]
    fn empty_and_bad_entries() {
        assert!(AllowList::parse("").expect("empty is valid").is_empty());
        assert!(
            AllowList::parse(" , ")
                .expect("blanks are valid")
                .is_empty()
        );
        for bad in ["10.0.0.0/33", "::/129", "a b", "http://x", "1.2.3.4/x"] {
            let err = AllowList::parse(bad).expect_err(bad);
            assert_eq!(err.1, NOT_AN_ENTRY, "{bad}");
        }
    }

    #[test]
    fn an_entry_with_a_port_is_refused_saying_why() {
        for entry in [
            "localhost:8091",
            "127.0.0.1:8091",
            "[::1]:8091",
            "media.local:80",
        ] {
            let err = AllowList::parse(&format!("10.0.0.0/8, {entry}")).expect_err(entry);
            assert_eq!(err.0, entry);
            assert!(err.to_string().contains("has a port"), "{err}");
            assert!(err.to_string().contains("leave the port out"), "{err}");
        }
        // IPv6 addresses are full of colons and are not ports.
        let list = AllowList::parse("::1, fd00::/8, [fd00::1]").expect("IPv6 entries");
        assert!(list.allows_ip(ip("::1")));
    }
}
