//! `flagfall event export --server URL --token T` and `flagfall event import --server URL
//! FILE`: an event moved between a server (`/api/events`, docs/protocol.md) and an event
//! file, over plain HTTP/1.1 (a server behind TLS is reached through its proxy's plain
//! side, or with a tunnel).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};

/// A server URL split: `host:port` and the path (`/` when none).
struct Url {
    authority: String,
    path: String,
}

fn split(url: &str) -> anyhow::Result<Url> {
    let rest = url.strip_prefix("http://").ok_or_else(|| {
        anyhow!("server URL {url:?}: expected http://HOST:PORT[/api/events/ID] (https is not spoken here)")
    })?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if authority.is_empty() {
        bail!("server URL {url:?}: no host");
    }
    let authority = if authority.contains(':') {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    Ok(Url {
        authority,
        path: path.to_string(),
    })
}

/// One request; the status and the body.
fn request(
    authority: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &[u8],
) -> anyhow::Result<(u16, String)> {
    let mut s =
        TcpStream::connect(authority).with_context(|| format!("cannot connect to {authority}"))?;
    s.set_read_timeout(Some(Duration::from_secs(60)))?;
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n{auth}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes())?;
    s.write_all(body)?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)
        .with_context(|| format!("reading the answer of {authority}"))?;
    let split_at = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| anyhow!("{authority} did not answer in HTTP"))?;
    let head = String::from_utf8_lossy(&raw[..split_at]).to_string();
    let rest = &raw[split_at + 4..];
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| anyhow!("{authority} did not answer in HTTP"))?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = Vec::new();
        let mut rest = rest;
        loop {
            let line_end = rest
                .windows(2)
                .position(|w| w == b"\r\n")
                .ok_or_else(|| anyhow!("a broken chunked answer"))?;
            let size = usize::from_str_radix(
                String::from_utf8_lossy(&rest[..line_end])
                    .split(';')
                    .next()
                    .unwrap_or("")
                    .trim(),
                16,
            )
            .context("a broken chunked answer")?;
            if size == 0 {
                break;
            }
            let start = line_end + 2;
            let chunk = rest
                .get(start..start + size)
                .ok_or_else(|| anyhow!("a truncated chunked answer"))?;
            out.extend_from_slice(chunk);
            rest = rest.get(start + size + 2..).unwrap_or(&[]);
        }
        out
    } else {
        rest.to_vec()
    };
    Ok((status, String::from_utf8_lossy(&body).to_string()))
}

/// What the server said went wrong.
fn refusal(status: u16, body: &str) -> anyhow::Error {
    let message = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_string))
        .unwrap_or_else(|| body.trim().to_string());
    anyhow!("the server answered {status}: {message}")
}

/// The event's id: `--event`, or the URL's `/events/ID` (`/api/events/ID` too).
fn event_id(url: &Url, event: Option<&str>) -> anyhow::Result<String> {
    if let Some(id) = event {
        return Ok(id.to_string());
    }
    let parts: Vec<&str> = url.path.split('/').filter(|p| !p.is_empty()).collect();
    parts
        .iter()
        .position(|p| *p == "events")
        .and_then(|i| parts.get(i + 1))
        .map(|id| id.to_string())
        .ok_or_else(|| {
            anyhow!(
                "which event? give --event ID, or the event's URL (http://HOST:PORT/api/events/ID)"
            )
        })
}

/// The event file of a server's evening (the director's token).
pub fn export(server: &str, event: Option<&str>, token: &str) -> anyhow::Result<String> {
    let url = split(server)?;
    let id = event_id(&url, event)?;
    let (status, body) = request(
        &url.authority,
        "GET",
        &format!("/api/events/{id}/export/json"),
        Some(token),
        b"",
    )?;
    if status != 200 {
        return Err(refusal(status, &body));
    }
    // It must be an event file before it is written anywhere.
    let mut event: flagfall_events::event::Event =
        serde_json::from_str(&body).context("the server's answer is not an event file")?;
    event.upgrade();
    event.validate()?;
    Ok(body)
}

/// Create an evening on a server from an event file; the server's answer (id, director
/// token, URLs).
pub fn import(server: &str, file_text: &str, play: Option<&str>) -> anyhow::Result<String> {
    let mut event: flagfall_events::event::Event =
        serde_json::from_str(file_text).context("not an event file")?;
    event.upgrade();
    event.validate()?;
    let url = split(server)?;
    let query = play.map_or(String::new(), |p| format!("?play={p}"));
    let (status, body) = request(
        &url.authority,
        "POST",
        &format!("/api/events/import{query}"),
        None,
        file_text.as_bytes(),
    )?;
    if status != 201 {
        return Err(refusal(status, &body));
    }
    Ok(body)
}
