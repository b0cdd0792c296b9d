//! The files the browser loads, compiled into the binary from `assets/web` (the page, its
//! script and style, and the vendored board). A path is only ever looked up in this embedded
//! tree: nothing is read from the disk, so `..` or an absolute path finds nothing (404).

use axum::extract::Path;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use include_dir::{Dir, include_dir};

static WEB: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/assets/web");

/// The embedded file at `path` (relative to `assets/web`), if there is one.
pub fn file(path: &str) -> Option<&'static [u8]> {
    if path
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return None;
    }
    WEB.get_file(path).map(|f| f.contents())
}

/// A page (or any asset) by its embedded path; 404 when there is none.
pub fn page(path: &str) -> Response {
    match file(path) {
        Some(bytes) => asset_response(path, bytes),
        None => super::Error::NotFound(format!("no asset '{path}'")).into_response(),
    }
}

/// `GET /assets/{*path}` (a path that is not UTF-8 text: the API's 400, in JSON).
pub async fn serve(
    path: Result<Path<String>, axum::extract::rejection::PathRejection>,
) -> Response {
    match path {
        Ok(Path(path)) => page(&path),
        Err(e) => super::Error::rejected(e.status(), e.body_text()).into_response(),
    }
}

/// `Content-Type` of an asset by its extension.
fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

fn asset_response(path: &str, bytes: &'static [u8]) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type(path)),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        bytes,
    )
        .into_response()
}
