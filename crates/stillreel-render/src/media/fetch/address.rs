//! The public-address rule (docs/API-DESIGN.md#media-fetching): which IP addresses the fetcher may
//! connect to.
//!
//! Pure functions over `std::net` types. Every address a host name resolves to is checked, and
//! IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) are judged by
//! the embedded address, so `[::ffff:127.0.0.1]` is loopback here as it is to the kernel.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not public; shown in the error message of a refused fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonPublic {
    Unspecified,
    Loopback,
    Private,
    LinkLocal,
    SharedCgnat,
    Multicast,
    Broadcast,
    Documentation,
    Reserved,
    UniqueLocal,
    /// An IPv6 form that embeds a non-public IPv4 address (mapped, compatible, 6to4, Teredo...).
    Embedded(&'static str),
}

impl NonPublic {
    /// A short description for messages.
    pub fn describe(self) -> &'static str {
        match self {
            NonPublic::Unspecified => "unspecified",
            NonPublic::Loopback => "loopback",
            NonPublic::Private => "private",
            NonPublic::LinkLocal => "link-local",
            NonPublic::SharedCgnat => "carrier-grade NAT",
            NonPublic::Multicast => "multicast",
            NonPublic::Broadcast => "broadcast",
            NonPublic::Documentation => "documentation",
            NonPublic::Reserved => "reserved",
            NonPublic::UniqueLocal => "unique-local",
            NonPublic::Embedded(inner) => inner,
        }
    }
}

/// `Ok(())` when `ip` is a public unicast address the fetcher may connect to.
pub fn check_public(ip: IpAddr) -> Result<(), NonPublic> {
    match ip {
        IpAddr::V4(v4) => check_v4(v4),
        IpAddr::V6(v6) => check_v6(v6),
    }
}

fn check_v4(ip: Ipv4Addr) -> Result<(), NonPublic> {
    let [a, b, c, _] = ip.octets();
    if ip.is_unspecified() || a == 0 {
        // 0.0.0.0/8 "this network": Linux connects 0.0.0.0 to the local host.
        return Err(NonPublic::Unspecified);
    }
    if ip.is_loopback() {
        return Err(NonPublic::Loopback);
    }
    if ip.is_private() {
        return Err(NonPublic::Private);
    }
    if ip.is_link_local() {
        // 169.254.0.0/16, including the cloud metadata address 169.254.169.254.
        return Err(NonPublic::LinkLocal);
    }
    if a == 100 && (b & 0xc0) == 64 {
        return Err(NonPublic::SharedCgnat);
    }
    if ip.is_multicast() {
        return Err(NonPublic::Multicast);
    }
    if ip.is_broadcast() {
        return Err(NonPublic::Broadcast);
    }
    if ip.is_documentation() || (a == 198 && (b & 0xfe) == 18) {
        // 192.0.2/24, 198.51.100/24, 203.0.113/24, and the benchmarking net 198.18/15.
        return Err(NonPublic::Documentation);
    }
    if (a == 192 && b == 0 && c == 0) || a >= 240 {
        // IETF protocol assignments 192.0.0/24 and the reserved 240/4.
        return Err(NonPublic::Reserved);
    }
    Ok(())
}

fn check_v6(ip: Ipv6Addr) -> Result<(), NonPublic> {
    if ip.is_unspecified() {
        return Err(NonPublic::Unspecified);
    }
    if ip.is_loopback() {
        return Err(NonPublic::Loopback);
    }
    let seg = ip.segments();
    if let Some(v4) = embedded_v4(ip) {
        return check_v4(v4).map_err(|inner| NonPublic::Embedded(inner.describe()));
    }
    if ip.is_multicast() {
        return Err(NonPublic::Multicast);
    }
    if (seg[0] & 0xfe00) == 0xfc00 {
        return Err(NonPublic::UniqueLocal);
    }
    if (seg[0] & 0xffc0) == 0xfe80 || (seg[0] & 0xffc0) == 0xfec0 {
        // Link-local, and the deprecated site-local fec0::/10.
        return Err(NonPublic::LinkLocal);
    }
    if seg[0] == 0x2001 && seg[1] == 0x0db8 || seg[0] == 0x3fff && seg[1] < 0x1000 {
        return Err(NonPublic::Documentation);
    }
    if seg[0] == 0x0100 && seg[1] == 0 && seg[2] == 0 && seg[3] == 0 {
        // 100::/64 discard-only.
        return Err(NonPublic::Reserved);
    }
    // Only global unicast (2000::/3) is public; everything else is reserved space.
    if (seg[0] & 0xe000) != 0x2000 {
        return Err(NonPublic::Reserved);
    }
    Ok(())
}

/// The IPv4 address an IPv6 address stands for or tunnels to, for the forms a kernel or a
/// gateway would route to that IPv4 address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let seg = ip.segments();
    let v4 = |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    match seg {
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated).
        [0, 0, 0, 0, 0, 0xffff, hi, lo] | [0, 0, 0, 0, 0, 0, hi, lo] => Some(v4(hi, lo)),
        // ::ffff:0:a.b.c.d (SIIT translated).
        [0, 0, 0, 0, 0xffff, 0, hi, lo] => Some(v4(hi, lo)),
        // 64:ff9b::a.b.c.d (NAT64 well-known) and 64:ff9b:1::/48 (local-use NAT64).
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] | [0x64, 0xff9b, 1, _, _, _, hi, lo] => Some(v4(hi, lo)),
        // 2002:a.b.c.d::/48 (6to4).
        [0x2002, hi, lo, ..] => Some(v4(hi, lo)),
        // 2001:0::/32 Teredo: the client address is the last 32 bits, inverted.
        [0x2001, 0, _, _, _, _, hi, lo] => Some(v4(!hi, !lo)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("test address parses")
    }

    #[test]
    fn refuses_every_non_public_range() {
        for s in [
            "0.0.0.0",
            "0.1.2.3",
            "127.0.0.1",
            "127.255.0.9",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "169.254.0.1",
            "100.64.0.1",
            "100.127.255.254",
            "224.0.0.1",
            "239.255.255.250",
            "255.255.255.255",
            "192.0.2.1",
            "198.51.100.7",
            "203.0.113.9",
            "198.18.0.1",
            "192.0.0.8",
            "240.0.0.1",
            "::",
            "::1",
            "fe80::1",
            "fec0::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "::ffff:0:127.0.0.1",
            "64:ff9b::10.0.0.1",
            "64:ff9b::127.0.0.1",
            "2002:7f00:1::1",
            "2002:a9fe:a9fe::1",
            "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo to 127.0.0.1
            "100::1",
            "::2",
        ] {
            assert!(check_public(ip(s)).is_err(), "{s} must be refused");
        }
    }

    #[test]
    fn accepts_public_addresses() {
        for s in [
            "8.8.8.8",
            "1.1.1.1",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.1",
            "172.32.0.1",
            "169.253.1.1",
            "2606:4700::1111",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2002:0808:0808::1",
        ] {
            assert_eq!(check_public(ip(s)), Ok(()), "{s} must be accepted");
        }
    }

    #[test]
    fn mapped_forms_name_their_inner_range() {
        assert_eq!(
            check_public(ip("::ffff:127.0.0.1")),
            Err(NonPublic::Embedded("loopback"))
        );
    }
}
