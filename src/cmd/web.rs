//! `deepred web`: the local web application.

use std::process::ExitCode;

use super::fail;
use crate::cli::WebArgs;

pub fn web(a: WebArgs) -> ExitCode {
    let ctx = deepred::eval::EvalContext {
        experience_file: a.db.clone(),
        eval_file: a.eval_file.clone(),
        ..Default::default()
    };
    let evaluator = match super::evaluator_with_net(a.evaluator, &ctx) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let opts = deepred::web::WebOptions {
        listen: a.listen,
        store: a.db.clone(),
        evaluator,
        min_games: a.min_games,
        games: deepred::web::GameSetup {
            hash_mb: a.hash as usize,
            eval_file: a.eval_file.clone().map(|f| (a.evaluator, f)),
        },
        explore_only: a.explore_only,
        learn_dir: a
            .learn_dir
            .clone()
            .or_else(|| deepred::experience::location::data_dir().map(|d| d.join("learn"))),
        curves: a.curve.clone(),
    };
    // A server that plays learns its games into the store: a first run makes it. The explorer
    // alone would only show an empty store: that is more likely a mistyped --db.
    let mut new = "";
    let uri = deepred::experience::location::is_sqlite_uri(&a.db);
    if !deepred::experience::store::is_server_url(&a.db) && !uri && !a.db.exists() {
        if a.explore_only {
            return fail(format!(
                "no experience store at '{}' yet: play, import or learn games first (deepred import GAMES.pgn), or name one with --db",
                a.db.display()
            ));
        }
        if let Err(e) = deepred::experience::store::Store::open(&a.db) {
            return fail(e);
        }
        new = ", new and empty";
    }
    let shown = deepred::experience::store::shown(&a.db);
    let result = deepred::web::serve(opts, |addr| {
        eprintln!("deepred web: http://{addr}/ (the store: {shown}{new}; Ctrl-C stops it)");
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}
