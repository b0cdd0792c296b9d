//! `deepred web`: the local web application, served by the binary with `axum`: games against
//! Deep Red or between two humans (`play`), learned into the store when they end, and the
//! explorer of the experience store (`explore`, read-only); with `--explore-only` no route
//! writes the store. Every page, script and the board (cm-chessboard, vendored by
//! `scripts/web-vendor.sh`) are served from the binary.
//!
//! Requests are small and parsed strictly: a bad FEN, move, PGN or parameter is a 400 with a
//! JSON `{"error": ...}`, an unknown path a 404, a body over [`MAX_BODY`] a 413.

pub mod assets;
pub mod explore;
pub mod play;
mod routes;
pub mod watch;
pub use play::GameSetup;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};

use crate::eval::Evaluator;
use crate::experience::store::Store;
use explore::Walk;

/// The largest request body (a pasted PGN).
pub const MAX_BODY: usize = 256 * 1024;
/// The most nodes `/api/choose` searches.
pub const MAX_NODES: u64 = 5_000_000;

/// Why a request or the server failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    TooMany(String),
    /// A request axum's extractors refused (bad JSON or text, a body over [`MAX_BODY`]), with
    /// its status: see [`Error::rejected`].
    #[error("{1}")]
    Rejected(StatusCode, String),
    #[error(transparent)]
    Store(#[from] crate::experience::Error),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("web server: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// An extractor's refusal: `413` for a body over [`MAX_BODY`], `400` for anything else
    /// malformed (axum would say 415 or 422; the API says 400 for every bad request).
    pub fn rejected(status: StatusCode, text: String) -> Error {
        match status {
            StatusCode::PAYLOAD_TOO_LARGE => Error::Rejected(status, text),
            _ => Error::BadRequest(text),
        }
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let status = match self {
            Error::BadRequest(_) => StatusCode::BAD_REQUEST,
            Error::NotFound(_) => StatusCode::NOT_FOUND,
            Error::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            Error::Rejected(status, _) => status,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        (
            status,
            Json(ErrorBody {
                error: shortened(self.to_string()),
            }),
        )
            .into_response()
    }
}

/// The most characters of an error message: one that quotes a request's input (a FEN, a line
/// of moves) does not send back a body's worth of it.
const MAX_ERROR_CHARS: usize = 1000;

/// `text` as one line cut to [`MAX_ERROR_CHARS`], saying how much was left out.
fn shortened(text: String) -> String {
    crate::chess::display::one_line(&text, MAX_ERROR_CHARS)
}

#[derive(Serialize)]
struct ErrorBody {
    error: String,
}

/// What the server serves.
pub struct WebOptions {
    pub listen: SocketAddr,
    /// The experience store (SQLite file or `postgresql://` URL), opened read-only.
    pub store: PathBuf,
    /// The evaluator of the net column and of Deep Red's choice.
    pub evaluator: Evaluator,
    /// Games a position needs before the book plays from it (`ExperienceMinGames`).
    pub min_games: u32,
    /// What each game in the browser gets: its hash table, and the net file of `evaluator`.
    pub games: play::GameSetup,
    /// The explorer only: no games, no route that writes the store.
    pub explore_only: bool,
    /// The learning loop's work folder (its `generations.csv`), if any.
    pub learn_dir: Option<PathBuf>,
    /// Learning-curve CSVs to draw.
    pub curves: Vec<PathBuf>,
}

struct AppState {
    store: Mutex<Store>,
    evaluator: Evaluator,
    min_games: u32,
    games: Option<play::Games>,
    learn_dir: Option<PathBuf>,
    curves: Vec<PathBuf>,
}

type Shared = Arc<AppState>;

/// The application's routes over an open store.
fn router(store: Store, opts: WebOptions) -> Router {
    let playing = !opts.explore_only;
    let state = Arc::new(AppState {
        store: Mutex::new(store),
        evaluator: opts.evaluator,
        min_games: opts.min_games,
        games: playing.then(|| play::Games::new(opts.store.clone(), opts.games)),
        learn_dir: opts.learn_dir,
        curves: opts.curves,
    });
    let mut app = Router::new()
        .route("/explore", get(|| async { assets::page("index.html") }))
        .route("/assets/{*path}", get(assets::serve))
        .route("/api/explore", get(explore_route))
        .route("/api/choose", get(choose_route))
        .route("/api/pgn", post(pgn_route))
        .route("/learn", get(|| async { assets::page("learn.html") }))
        .route("/api/growth", get(growth_route))
        .route("/api/generations", get(generations_route))
        .route("/api/learning", get(learning_route))
        .route("/api/curves", get(curves_route));
    // The game routes answer 404 "explore-only" when the server has no games.
    app = app
        .route("/play", get(|| async { assets::page("play.html") }))
        .route("/api/games", post(routes::new_game))
        .route("/api/games/{id}", get(routes::game))
        .route("/api/games/{id}/move", post(routes::play_move))
        .route("/api/games/{id}/takeback", post(routes::takeback))
        .route("/api/games/{id}/resign", post(routes::resign))
        .route("/api/games/{id}/draw", post(routes::draw))
        .route("/api/games/{id}/pgn", get(routes::pgn));
    app = if playing {
        app.route("/", get(|| async { assets::page("play.html") }))
    } else {
        app.route("/", get(|| async { assets::page("index.html") }))
    };
    // Every error is JSON `{"error": ...}`, also an unknown path and a method a route lacks.
    app.fallback(|| async { Error::NotFound("not found".into()) })
        .method_not_allowed_fallback(|| async {
            Error::Rejected(
                StatusCode::METHOD_NOT_ALLOWED,
                "this path does not take that method".into(),
            )
        })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// Serves until the process ends; `ready` hears the address once it listens.
pub fn serve(opts: WebOptions, ready: impl FnOnce(SocketAddr)) -> Result<(), Error> {
    let store = Store::open_read_only(&opts.store)?;
    let listen = opts.listen;
    let app = router(store, opts);
    // Timers too: a failed accept (no file left for another connection) makes the accept
    // loop sleep a second and accept again (without timers that sleep aborted the server),
    // and hyper times slow headers out with them.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|source| Error::Listen {
                addr: listen,
                source,
            })?;
        ready(listener.local_addr()?);
        accept_loop(listener, app).await
    })
}

/// Serves each accepted connection on a task of its own, with hyper's HTTP/1 server set up as
/// `axum::serve` cannot be: a client that half-closes its side after the request (`nc -N`, a
/// script's `shutdown(SHUT_WR)`) still gets the answer (hyper dropped it unanswered), and a
/// client that sends its headers slower than [`HEADER_TIMEOUT`] is dropped (without a timer
/// hyper waited forever, holding a file).
async fn accept_loop(listener: tokio::net::TcpListener, app: Router) -> Result<(), Error> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // The client gave up between its connect and our accept: nothing to serve.
            Err(e) if is_connection_error(&e) => continue,
            // No file left for another connection: wait for some to close, as axum did. Not
            // a word on stderr: a parent that stopped reading it would make that write fail.
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                continue;
            }
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            // A connection's error (a reset, a malformed request hyper already answered)
            // ends that connection only.
            let _ = hyper::server::conn::http1::Builder::new()
                .half_close(true)
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// How long a client may take to send a request's headers, counted from the connection or the
/// previous answer: also how long a kept-alive connection may stay idle.
const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

#[derive(Deserialize)]
struct PositionQuery {
    fen: Option<String>,
    moves: Option<String>,
    nodes: Option<u64>,
}

/// Runs `f` with the store on a blocking thread (SQLite and PostgreSQL calls block).
async fn with_store<T: Send + 'static>(
    state: Shared,
    f: impl FnOnce(&Store, &AppState) -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    tokio::task::spawn_blocking(move || {
        // A panic elsewhere never leaves the store unusable: its state is only read.
        let store = state.store.lock().unwrap_or_else(|e| e.into_inner());
        f(&store, &state)
    })
    .await
    .map_err(|e| Error::Io(std::io::Error::other(e.to_string())))?
}

async fn explore_route(
    State(state): State<Shared>,
    q: Result<Query<PositionQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<explore::Explored>, Error> {
    let Query(q) = q.map_err(|e| Error::BadRequest(e.body_text()))?;
    let walk = Walk::parse(q.fen.as_deref(), q.moves.as_deref())?;
    let out = with_store(state, move |store, s| {
        explore::explore(store, &walk, &s.evaluator, s.min_games)
    })
    .await?;
    Ok(Json(out))
}

async fn choose_route(
    State(state): State<Shared>,
    q: Result<Query<PositionQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Option<explore::Choice>>, Error> {
    let Query(q) = q.map_err(|e| Error::BadRequest(e.body_text()))?;
    let nodes = q.nodes.unwrap_or(200_000);
    if nodes == 0 || nodes > MAX_NODES {
        return Err(Error::BadRequest(format!(
            "nodes: {nodes}, not between 1 and {MAX_NODES}"
        )));
    }
    let walk = Walk::parse(q.fen.as_deref(), q.moves.as_deref())?;
    let w = walk.clone();
    let book = with_store(state.clone(), move |store, s| {
        Ok(explore::book_choice(store, &w, s.min_games))
    })
    .await?;
    if book.is_some() {
        return Ok(Json(book));
    }
    // The search holds no lock on the store: the explorer's other requests go on meanwhile.
    let out = tokio::task::spawn_blocking(move || {
        explore::search_choice(&walk, &state.evaluator, state.min_games, nodes)
    })
    .await
    .map_err(|e| Error::Io(std::io::Error::other(e.to_string())))??;
    Ok(Json(out))
}

async fn growth_route(State(state): State<Shared>) -> Result<Json<watch::Growth>, Error> {
    Ok(Json(
        with_store(state, |store, _| watch::growth(store)).await?,
    ))
}

async fn generations_route(
    State(state): State<Shared>,
) -> Result<Json<Vec<watch::Generation>>, Error> {
    Ok(Json(
        with_store(state, |store, _| watch::generations(store)).await?,
    ))
}

async fn curves_route(State(state): State<Shared>) -> Result<Json<Vec<watch::Curve>>, Error> {
    let out = tokio::task::spawn_blocking(move || {
        watch::curves(state.learn_dir.as_deref(), &state.curves)
    })
    .await
    .map_err(|e| Error::Io(std::io::Error::other(e.to_string())))?;
    Ok(Json(out))
}

async fn learning_route(
    State(state): State<Shared>,
) -> Result<Json<Option<watch::LoopStatus>>, Error> {
    Ok(Json(
        with_store(state, |store, _| watch::loop_status(store)).await?,
    ))
}

#[derive(Serialize)]
struct PgnGame {
    start_fen: String,
    moves: Vec<String>,
    tags: Vec<(String, String)>,
}

/// A pasted PGN: its first game's start and moves (what the explorer walks), or why not.
async fn pgn_route(
    body: Result<String, axum::extract::rejection::StringRejection>,
) -> Result<Json<PgnGame>, Error> {
    let mut body = body.map_err(|e| Error::rejected(e.status(), e.body_text()))?;
    // Pasted text is whole, result or not (`1. e4 e5 2. Nf3`): not a file cut short.
    body.push('\n');
    let games = crate::chess::pgn::read_games(body.as_bytes());
    let game = match games.into_iter().next() {
        None => return Err(Error::BadRequest("PGN: no game in the text".into())),
        Some(Err(e)) => return Err(Error::BadRequest(format!("PGN: {e}"))),
        Some(Ok(g)) => g,
    };
    // Text with neither a tag nor a move ("hello world") is no game (it was an empty one).
    if game.moves.is_empty() && game.tags.is_empty() {
        return Err(Error::BadRequest(
            "PGN: no game in the text (no tag and no move)".into(),
        ));
    }
    if game.chess960 {
        return Err(Error::BadRequest(
            "PGN: a Chess960 game (the explorer knows standard chess)".into(),
        ));
    }
    let moves = game
        .moves
        .iter()
        .map(|&m| crate::chess::notation::uci_move(m, false))
        .collect();
    Ok(Json(PgnGame {
        start_fen: crate::chess::fen::fen_of(&game.start),
        moves,
        tags: game.tags,
    }))
}
