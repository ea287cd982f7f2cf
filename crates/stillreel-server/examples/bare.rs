//! The benchmark baseline: a bare axum handler answering a fixed JSON body (the bench script
//! passes the bytes of a real `get_video` answer, so both sides send the same record). No
//! database, no auth, no middleware: the ceiling the real endpoint is compared with.
//!
//! `BARE_LISTEN=127.0.0.1:18090 BARE_BODY_FILE=body.json cargo run --release --example bare`

use axum::Router;
use axum::http::header;
use axum::routing::get;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listen = std::env::var("BARE_LISTEN").unwrap_or_else(|_| "127.0.0.1:18090".to_owned());
    let body: &'static [u8] = match std::env::var("BARE_BODY_FILE") {
        Ok(path) => std::fs::read(path)?.leak(),
        Err(_) => br#"{"uuid":"00000000-0000-0000-0000-000000000000","status":"queued"}"#,
    };
    let app = Router::new().route(
        "/api/v1/get_video",
        get(move || async move { ([(header::CONTENT_TYPE, "application/json")], body) }),
    );
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    axum::serve(listener, app).await?;
    Ok(())
}
