//! The security headers every answer carries, the refusal of a body announced too long,
//! and the WebSocket close code for a failed read.

use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

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

/// A request whose `Content-Length` is over the body limit is refused at once (`413`),
/// before its body is read.
pub async fn refuse_long_bodies(req: Request, next: Next) -> Response {
    let length = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if let Some(n) = length
        && n > flagfall_protocol::MAX_BODY_BYTES as u64
    {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            axum::Json(serde_json::json!({
                "error": format!(
                    "body of {n} bytes: more than the {} allowed",
                    flagfall_protocol::MAX_BODY_BYTES
                )
            })),
        )
            .into_response();
    }
    next.run(req).await
}
