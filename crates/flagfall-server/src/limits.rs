//! What a stranger may do (issue 19's abuse items, docs/protocol.md "Limits"): the
//! security headers every answer carries, and the WebSocket close code for a failed read.

use axum::http::{HeaderValue, header};
use axum::response::Response;

/// The Content-Security-Policy of every answer. The web UI (`web/dist`) loads its own
/// script and stylesheet, opens a WebSocket to its own origin, and shows `data:` images
/// (its icon, the stylesheet's SVG pieces); nothing inline, nothing from elsewhere, and
/// it is never framed.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Add the security headers: the CSP, no framing (`X-Frame-Options: DENY`), and no
/// `Referer` (tokens travel in page URLs), and no MIME sniffing.
pub async fn security_headers(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// The close code for a socket whose read failed, as RFC 6455 section 7.4.1 says: 1009
/// for a message too big, 1007 for a text message that is not UTF-8, 1002 for a breach
/// of the protocol, 1011 otherwise.
pub fn close_code_for(e: axum::Error) -> u16 {
    use axum::extract::ws::close_code;
    use tokio_tungstenite::tungstenite::Error as WsError;
    match e.into_inner().downcast::<WsError>() {
        Ok(e) => match *e {
            WsError::Capacity(_) => close_code::SIZE,
            WsError::Utf8(_) => close_code::INVALID,
            WsError::Protocol(_) => close_code::PROTOCOL,
            _ => close_code::ERROR,
        },
        Err(_) => close_code::ERROR,
    }
}
