//! The round trip to the client as the transport measured it: the kernel's, on a direct
//! connection, or a trusted proxy's (docs/protocol.md "Lag compensation").

use std::sync::{Arc, Mutex};

/// The header a trusted proxy puts the round trip it measured to the client in,
/// microseconds (nginx `$tcpinfo_rtt`, HAProxy `%[fc_rtt(us)]`); with its variation in
/// [`RTTVAR_HEADER`] (`$tcpinfo_rttvar`, `%[fc_rttvar(us)]`). Read from trusted proxies
/// only (docs/protocol.md "Lag compensation").
pub const RTT_HEADER: &str = "x-client-rtt";
/// See [`RTT_HEADER`].
pub const RTTVAR_HEADER: &str = "x-client-rttvar";

/// The round trip to the client as the transport measured it, which the client's
/// application cannot stretch (the kernel times the TCP acknowledgements; its
/// WebSocket pongs it may hold back): the bound of a socket's lag credit
/// (docs/protocol.md "Lag compensation"). Every request carries one.
#[derive(Clone, Default)]
pub struct Transport {
    /// The accepted socket, for `TCP_INFO` (a direct client).
    kernel: Option<Arc<FdSlot>>,
    /// What a trusted proxy measured (µs): round trip and its variation.
    forwarded_us: Option<(u64, Option<u64>)>,
}

impl Transport {
    /// A direct client's: what the kernel measured on its socket.
    pub(super) fn direct(fd: Arc<FdSlot>) -> Transport {
        Transport {
            kernel: Some(fd),
            forwarded_us: None,
        }
    }

    /// A trusted proxy's client's: what the proxy passed in [`RTT_HEADER`] and
    /// [`RTTVAR_HEADER`], if it did.
    pub(super) fn forwarded(headers: &axum::http::HeaderMap) -> Transport {
        Transport {
            kernel: None,
            forwarded_us: forwarded_rtt(headers),
        }
    }

    /// The largest round trip the transport vouches for, in microseconds. On a direct
    /// connection twice the least round trip the kernel has measured (`tcpi_min_rtt`):
    /// the smoothed round trip will not do, as a client that holds its pongs back also
    /// leaves the server's pings to its kernel's delayed acknowledgement (40 to 200 ms),
    /// which the smoothed round trip and its variation take in. Behind a trusted proxy,
    /// the smoothed round trip it passes plus four times its variation, twice the round
    /// trip when no variation is passed. `None`: no transport measurement (a trusted
    /// proxy that forwards none, a system without `TCP_INFO`).
    pub fn rtt_bound_us(&self) -> Option<u64> {
        if let Some(k) = &self.kernel {
            return k.min_rtt_us().map(|m| m.saturating_mul(2));
        }
        let (rtt, var) = self.forwarded_us?;
        Some(match var {
            Some(v) => rtt.saturating_add(v.saturating_mul(4)),
            None => rtt.saturating_mul(2),
        })
    }
}

/// An accepted socket's descriptor while its connection is open (`None` once it is
/// closed: a number the system may give to another socket is never asked).
#[derive(Default)]
pub(super) struct FdSlot(Mutex<Option<i32>>);

impl FdSlot {
    /// Hold `fd`, the socket just accepted.
    pub(super) fn set(&self, fd: i32) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(fd);
    }

    /// `tcpi_min_rtt` (µs) of the socket, where the system tells it.
    fn min_rtt_us(&self) -> Option<u64> {
        let fd = self.0.lock().unwrap_or_else(|p| p.into_inner());
        tcp_min_rtt_us((*fd)?)
    }

    /// Forget the descriptor: its socket is closing.
    pub(super) fn close(&self) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

#[cfg(target_os = "linux")]
fn tcp_min_rtt_us(fd: i32) -> Option<u64> {
    let mut info = std::mem::MaybeUninit::<libc::tcp_info>::zeroed();
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: `fd` is an open TCP socket (the slot is emptied under its lock before the
    // socket closes, and this runs under that lock); `info` and `len` describe a
    // writable buffer of `len` bytes.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            info.as_mut_ptr().cast(),
            &mut len,
        )
    };
    // An older kernel fills less of the structure: it must reach `tcpi_min_rtt`.
    let needed = std::mem::offset_of!(libc::tcp_info, tcpi_min_rtt) + 4;
    if r != 0 || (len as usize) < needed {
        return None;
    }
    // SAFETY: the structure was zeroed, and getsockopt wrote the first `len` bytes.
    let info = unsafe { info.assume_init() };
    // No sample yet: the kernel's "infinite" minimum.
    (info.tcpi_min_rtt != u32::MAX).then(|| u64::from(info.tcpi_min_rtt))
}

#[cfg(not(target_os = "linux"))]
fn tcp_min_rtt_us(_fd: i32) -> Option<u64> {
    None
}

/// The round trip a trusted proxy measured, from [`RTT_HEADER`] and [`RTTVAR_HEADER`].
fn forwarded_rtt(headers: &axum::http::HeaderMap) -> Option<(u64, Option<u64>)> {
    let read = |name: &str| -> Option<u64> {
        headers.get(name)?.to_str().ok()?.trim().parse::<u64>().ok()
    };
    Some((read(RTT_HEADER)?, read(RTTVAR_HEADER)))
}
