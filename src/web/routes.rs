//! The routes of the games (`play`): JSON in and out, each request run on a blocking thread
//! (a game's lock, the store's writes).

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Json, Response};
use serde::Deserialize;

use super::play::{GameView, Games, NewGame};
use super::{Error, Shared};

/// Runs `f` on the games on a blocking thread.
async fn with_games<T: Send + 'static>(
    state: Shared,
    f: impl FnOnce(&Games) -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    tokio::task::spawn_blocking(move || match &state.games {
        Some(g) => f(g),
        None => Err(Error::NotFound(
            "no games here: this server was started with --explore-only".into(),
        )),
    })
    .await
    .map_err(|e| Error::Io(std::io::Error::other(e.to_string())))?
}

fn body<T>(b: Result<Json<T>, JsonRejection>) -> Result<T, Error> {
    b.map(|Json(v)| v)
        .map_err(|e| Error::rejected(e.status(), e.body_text()))
}

fn id_of(p: Result<Path<u64>, axum::extract::rejection::PathRejection>) -> Result<u64, Error> {
    p.map(|Path(id)| id)
        .map_err(|e| Error::BadRequest(format!("game id: {}", e.body_text())))
}

type PathId = Result<Path<u64>, axum::extract::rejection::PathRejection>;

pub async fn new_game(
    State(state): State<Shared>,
    b: Result<Json<NewGame>, JsonRejection>,
) -> Result<Json<GameView>, Error> {
    let g = body(b)?;
    Ok(Json(with_games(state, move |games| games.create(g)).await?))
}

pub async fn game(State(state): State<Shared>, id: PathId) -> Result<Json<GameView>, Error> {
    let id = id_of(id)?;
    Ok(Json(with_games(state, move |g| g.view(id)).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveBody {
    #[serde(rename = "move")]
    mv: String,
}

pub async fn play_move(
    State(state): State<Shared>,
    id: PathId,
    b: Result<Json<MoveBody>, JsonRejection>,
) -> Result<Json<GameView>, Error> {
    let id = id_of(id)?;
    let m = body(b)?.mv;
    Ok(Json(with_games(state, move |g| g.play(id, &m)).await?))
}

pub async fn takeback(State(state): State<Shared>, id: PathId) -> Result<Json<GameView>, Error> {
    let id = id_of(id)?;
    Ok(Json(with_games(state, move |g| g.takeback(id)).await?))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ResignBody {
    color: Option<String>,
}

pub async fn resign(
    State(state): State<Shared>,
    id: PathId,
    b: axum::body::Bytes,
) -> Result<Json<GameView>, Error> {
    let id = id_of(id)?;
    // An empty body (with or without a JSON content type) resigns for the side to move's
    // human.
    let color = if b.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        serde_json::from_slice::<ResignBody>(&b)
            .map_err(|e| Error::BadRequest(format!("resign: {e}")))?
            .color
    };
    Ok(Json(
        with_games(state, move |g| g.resign(id, color.as_deref())).await?,
    ))
}

pub async fn draw(State(state): State<Shared>, id: PathId) -> Result<Json<GameView>, Error> {
    let id = id_of(id)?;
    Ok(Json(with_games(state, move |g| g.draw(id)).await?))
}

pub async fn pgn(State(state): State<Shared>, id: PathId) -> Result<Response, Error> {
    let id = id_of(id)?;
    let text = with_games(state, move |g| g.pgn(id)).await?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "application/x-chess-pgn; charset=utf-8",
            ),
            (
                header::CONTENT_DISPOSITION,
                &format!("attachment; filename=\"deepred-game-{id}.pgn\"") as &str,
            ),
        ],
        text,
    )
        .into_response())
}
