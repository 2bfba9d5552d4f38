//! The processes of a run: the open-file limit, CPU time and resident memory read from
//! `/proc`, and the child servers (started, probed, stopped with SIGTERM).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::LoadError;
use crate::bots::http;

/// Raise the open-file limit to the hard limit; returns the limit in force (0 where
/// there is no such limit to read).
pub fn raise_nofile() -> u64 {
    #[cfg(unix)]
    {
        rlimit::increase_nofile_limit(u64::MAX).unwrap_or(0)
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// CPU time (user + system) process `pid` ("self" for this one) has used, microseconds.
pub(crate) fn cpu_us(pid: &str) -> u64 {
    #[cfg(unix)]
    {
        // SAFETY: sysconf has no preconditions.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                // Fields after the command name (which may hold spaces, in parentheses):
                // state is field 3, utime 14 and stime 15.
                let rest = &s[s.rfind(')')? + 2..];
                let f: Vec<&str> = rest.split_whitespace().collect();
                let utime: u64 = f.get(11)?.parse().ok()?;
                let stime: u64 = f.get(12)?.parse().ok()?;
                Some((utime + stime) * 1_000_000 / ticks)
            })
            .unwrap_or(0)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        0
    }
}

/// Resident memory of process `pid` ("self" for this one), KiB.
pub(crate) fn rss_kib(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// A child server process, stopped (SIGTERM, then SIGKILL) when dropped.
pub(crate) struct ChildServer {
    child: Child,
    program: PathBuf,
    pub(crate) addr: SocketAddr,
}

impl ChildServer {
    pub(crate) fn pid(&self) -> String {
        self.child.id().to_string()
    }

    fn error(&self, problem: impl Into<String>) -> LoadError {
        LoadError::Child {
            program: self.program.clone(),
            addr: self.addr,
            problem: problem.into(),
        }
    }

    /// SIGTERM and wait for the exit (the server flushes and exits 0).
    pub(crate) fn stop(mut self) -> Result<(), LoadError> {
        terminate(&self.child);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match self
                .child
                .try_wait()
                .map_err(LoadError::io("waiting for the server"))?
            {
                Some(status) if status.success() => return Ok(()),
                Some(status) => return Err(self.error(format!("exited with {status}"))),
                None if Instant::now() > deadline => {
                    let _ = self.child.kill();
                    return Err(self.error("did not stop within 20 s of SIGTERM"));
                }
                None => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }
}

impl ChildServer {
    /// SIGKILL, and reap the process.
    pub(crate) fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value of an unlabelled metric on a node's `/metrics` (0 when it is absent).
pub(crate) async fn metric(addr: SocketAddr, name: &str) -> Result<f64, LoadError> {
    let text = http(addr, "GET", "/metrics", "").await?;
    Ok(metric_in(&text, name))
}

/// The value of `name` in a Prometheus text exposition (0 when it is absent).
pub(crate) fn metric_in(text: &str, name: &str) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| {
            let (key, value) = l.rsplit_once(' ')?;
            (key == name).then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0.0)
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn terminate(child: &Child) {
    #[cfg(unix)]
    // SAFETY: sending a signal to our own child's pid.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    #[cfg(not(unix))]
    let _ = child;
}

/// A loopback port nobody listens on now.
pub(crate) fn free_port() -> Result<SocketAddr, LoadError> {
    let doing = "finding a free loopback port";
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(LoadError::io(doing))?;
    l.local_addr().map_err(LoadError::io(doing))
}

/// Start `exe args...` listening on `addr` and wait until it answers `probe`.
pub(crate) async fn spawn_child(
    exe: &Path,
    args: &[String],
    addr: SocketAddr,
    probe: &str,
) -> Result<ChildServer, LoadError> {
    let child = Command::new(exe)
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(LoadError::io(format!("starting {}", exe.display())))?;
    let mut child = ChildServer {
        child,
        program: exe.to_path_buf(),
        addr,
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child
            .child
            .try_wait()
            .map_err(LoadError::io("waiting for a child"))?
        {
            return Err(child.error(format!("{args:?} exited with {status}")));
        }
        if http(addr, "GET", probe, "").await.is_ok() {
            return Ok(child);
        }
        if Instant::now() > deadline {
            return Err(child.error("did not answer within 30 s"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
