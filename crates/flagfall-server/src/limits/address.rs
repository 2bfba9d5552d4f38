//! The client's address, from one function for every per-address limit: the TCP peer,
//! or what a trusted proxy says (a header, or the PROXY protocol header its connection
//! begins with).

use std::net::IpAddr;

use axum::extract::ConnectInfo;
use axum::http::header;
use tokio::net::TcpStream;

use super::{ClientAddressFrom, Limits};

/// The address of the client that sent a request, as every per-address limit keys it:
/// the `ConnectInfo` [`serve`](fn@super::serve) gives every request ([`client_address`]:
/// the TCP peer, or what a trusted proxy says).
pub fn request_address(extensions: &axum::http::Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip())
}

/// The client's address as a handler's argument ([`request_address`]; `None` when the
/// request did not come through [`serve`](fn@super::serve), as in a unit test's router).
pub struct ClientAddress(pub Option<IpAddr>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(ClientAddress(request_address(&parts.extensions)))
    }
}

/// Whether `ip` is one of the trusted proxies.
pub(super) fn trusted(limits: &Limits, ip: IpAddr) -> bool {
    let ip = ip.to_canonical();
    limits.trusted_proxies.iter().any(|n| n.contains(&ip))
}

/// The client's address, the one source of it for every per-address limit (open
/// connections, creations, and whatever else is keyed by address: they read the
/// `ConnectInfo` that [`serve`](fn@super::serve) sets from this). `peer` is the TCP
/// peer; `proxied` the address a PROXY protocol header gave. A peer that is not a
/// trusted proxy is the client, whatever headers it sends; a trusted proxy's word is
/// taken from the one source the operator chose ([`ClientAddressFrom`]): the rightmost
/// address that is not itself a trusted proxy (each proxy appends the address it saw;
/// what is left of the last untrusted one was written by the client). A header missing
/// or unreadable leaves the proxy's own address: its clients share one bucket, never a
/// forged one.
pub fn client_address(
    limits: &Limits,
    peer: IpAddr,
    proxied: Option<IpAddr>,
    headers: &axum::http::HeaderMap,
) -> IpAddr {
    let peer = peer.to_canonical();
    if !trusted(limits, peer) {
        return peer;
    }
    let chain: Vec<Option<IpAddr>> = match limits.client_address_from {
        ClientAddressFrom::ProxyProtocol => return proxied.unwrap_or(peer),
        ClientAddressFrom::XForwardedFor => headers
            .get_all("x-forwarded-for")
            .iter()
            .flat_map(|v| v.to_str().unwrap_or("\u{0}").split(','))
            .map(|a| parse_node(a.trim()))
            .collect(),
        ClientAddressFrom::Forwarded => headers
            .get_all(header::FORWARDED)
            .iter()
            .flat_map(|v| v.to_str().unwrap_or("\u{0}").split(','))
            .map(|element| {
                element
                    .split(';')
                    .filter_map(|pair| pair.trim().split_once('='))
                    .find(|(k, _)| k.trim().eq_ignore_ascii_case("for"))
                    .and_then(|(_, v)| parse_node(v.trim().trim_matches('"')))
            })
            .collect(),
    };
    for hop in chain.iter().rev() {
        match hop {
            Some(ip) if trusted(limits, *ip) => continue,
            Some(ip) => return ip.to_canonical(),
            // `unknown`, an obfuscated name, garbage: nothing left of it can be trusted.
            None => return peer,
        }
    }
    // Every hop a trusted proxy (a proxy's own request): the innermost one.
    chain.first().copied().flatten().unwrap_or(peer)
}

/// An address of `X-Forwarded-For` or of a `for=`: `192.0.2.1`, `192.0.2.1:4711`,
/// `2001:db8::1`, `[2001:db8::1]:4711`.
fn parse_node(s: &str) -> Option<IpAddr> {
    if let Ok(ip) = s.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(sa) = s.parse::<std::net::SocketAddr>() {
        return Some(sa.ip());
    }
    let inner = s.strip_prefix('[')?.split(']').next()?;
    inner.parse().ok()
}

/// The longest PROXY protocol version 1 line, its `\r\n` included.
const PROXY_V1_MAX: usize = 107;
/// The 12 bytes a PROXY protocol version 2 header begins with.
const PROXY_V2_SIGNATURE: &[u8; 12] = b"\r\n\r\n\0\r\nQUIT\n";

/// Read the PROXY protocol header a trusted proxy's connection begins with (exactly
/// its bytes: what follows is the HTTP request) and the client's address in it (`None`
/// for a `LOCAL` or `UNKNOWN` header: the proxy's own connection, a health check).
/// Version 1 is a line of at most [`PROXY_V1_MAX`] bytes; version 2 is 16 bytes and
/// the length they announce (addresses and TLVs).
pub(super) async fn read_proxy_header(tcp: &mut TcpStream) -> Result<Option<IpAddr>, String> {
    use tokio::io::AsyncReadExt;
    let mut head = [0u8; 16];
    tcp.read_exact(&mut head[..6])
        .await
        .map_err(|e| e.to_string())?;
    if &head[..6] == b"PROXY " {
        let mut line = head[..6].to_vec();
        while !line.ends_with(b"\r\n") {
            if line.len() >= PROXY_V1_MAX {
                return Err(format!("a PROXY line longer than {PROXY_V1_MAX} bytes"));
            }
            let mut b = [0u8; 1];
            tcp.read_exact(&mut b).await.map_err(|e| e.to_string())?;
            line.push(b[0]);
        }
        let text = std::str::from_utf8(&line).map_err(|_| "a PROXY line that is not text")?;
        let h = ppp::v1::Header::try_from(text).map_err(|e| format!("PROXY line: {e}"))?;
        return Ok(match h.addresses {
            ppp::v1::Addresses::Tcp4(a) => Some(IpAddr::V4(a.source_address)),
            ppp::v1::Addresses::Tcp6(a) => Some(IpAddr::V6(a.source_address)),
            ppp::v1::Addresses::Unknown => None,
        });
    }
    tcp.read_exact(&mut head[6..])
        .await
        .map_err(|e| e.to_string())?;
    if &head[..12] != PROXY_V2_SIGNATURE {
        return Err("the connection does not begin with a PROXY protocol header".into());
    }
    let len = usize::from(u16::from_be_bytes([head[14], head[15]]));
    let mut all = head.to_vec();
    all.resize(16 + len, 0);
    tcp.read_exact(&mut all[16..])
        .await
        .map_err(|e| e.to_string())?;
    let h = ppp::v2::Header::try_from(&all[..]).map_err(|e| format!("PROXY header: {e}"))?;
    if h.command == ppp::v2::Command::Local {
        return Ok(None);
    }
    Ok(match h.addresses {
        ppp::v2::Addresses::IPv4(a) => Some(IpAddr::V4(a.source_address)),
        ppp::v2::Addresses::IPv6(a) => Some(IpAddr::V6(a.source_address)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::parse_trusted_proxies;

    fn behind(from: ClientAddressFrom) -> Limits {
        Limits {
            trusted_proxies: parse_trusted_proxies("10.0.0.0/8, 192.0.2.7").unwrap(),
            client_address_from: from,
            ..Limits::default()
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> axum::http::HeaderMap {
        let mut h = axum::http::HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn the_client_is_the_rightmost_untrusted_hop() {
        let l = behind(ClientAddressFrom::XForwardedFor);
        let proxy: IpAddr = "10.1.2.3".parse().unwrap();
        let stranger: IpAddr = "203.0.113.9".parse().unwrap();
        let xff = headers(&[("x-forwarded-for", "1.1.1.1, 198.51.100.4, 10.9.9.9")]);
        // A trusted proxy: the last hop not trusted.
        assert_eq!(
            client_address(&l, proxy, None, &xff),
            "198.51.100.4".parse::<IpAddr>().unwrap()
        );
        // A stranger's header is nothing.
        assert_eq!(client_address(&l, stranger, None, &xff), stranger);
        // No header, garbage, `unknown`: the proxy itself.
        assert_eq!(client_address(&l, proxy, None, &headers(&[])), proxy);
        let junk = headers(&[("x-forwarded-for", "1.1.1.1, junk")]);
        assert_eq!(client_address(&l, proxy, None, &junk), proxy);
        // Two header lines are one list; IPv6 with a port.
        let two = headers(&[
            ("x-forwarded-for", "1.1.1.1"),
            ("x-forwarded-for", "[2001:db8::1]:4711"),
        ]);
        assert_eq!(
            client_address(&l, proxy, None, &two),
            "2001:db8::1".parse::<IpAddr>().unwrap()
        );
        // Forwarded is not read when X-Forwarded-For is the source.
        let fwd = headers(&[("forwarded", "for=198.51.100.77")]);
        assert_eq!(client_address(&l, proxy, None, &fwd), proxy);
    }

    #[test]
    fn forwarded_and_proxy_protocol_sources() {
        let l = behind(ClientAddressFrom::Forwarded);
        let proxy: IpAddr = "192.0.2.7".parse().unwrap();
        let h = headers(&[(
            "forwarded",
            "for=1.1.1.1;proto=https, for=\"[2001:db8::2]:80\";by=10.0.0.1, for=10.0.0.5",
        )]);
        assert_eq!(
            client_address(&l, proxy, None, &h),
            "2001:db8::2".parse::<IpAddr>().unwrap()
        );
        let xff = headers(&[("x-forwarded-for", "198.51.100.4")]);
        assert_eq!(client_address(&l, proxy, None, &xff), proxy);
        let l = behind(ClientAddressFrom::ProxyProtocol);
        let from: IpAddr = "198.51.100.8".parse().unwrap();
        assert_eq!(client_address(&l, proxy, Some(from), &xff), from);
        assert_eq!(client_address(&l, proxy, None, &xff), proxy);
        assert!(parse_trusted_proxies("10.0.0.0/33").is_err());
        assert!(parse_trusted_proxies("nope").is_err());
    }
}
