// Play in `deepred web`: the server holds the game (moves checked, clocks, Deep Red's searches,
// learning when it ends); this script sends the human's moves and draws what it answers,
// asking again every quarter second while a clock runs or Deep Red thinks.
import {COLOR, START, makeBoard, moveInput} from "./board.js"

const $ = (id) => document.getElementById(id)
let game = null      // the last answer of the server
let timer = null
let flipped = false

const board = makeBoard($("board"))
const inputHandler = moveInput(board, () => game, (uci) => act("POST", "/move", {move: uci}))

function showError(text) {
    $("error").textContent = text || ""
    $("error").hidden = !text
}

async function call(method, url, body) {
    const options = {method}
    if (body !== undefined) {
        options.body = JSON.stringify(body)
        options.headers = {"Content-Type": "application/json"}
    }
    const r = await fetch(url, options)
    const answer = await r.json().catch(() => ({error: `${r.status} ${r.statusText}`}))
    if (!r.ok) throw new Error(answer.error || `${r.status} ${r.statusText}`)
    return answer
}

async function act(method, path, body) {
    if (!game) return
    try {
        show(await call(method, `/api/games/${game.id}${path}`, body))
        showError("")
    } catch (err) {
        showError(err.message)
        if (game) show(await call("GET", `/api/games/${game.id}`))
    }
}

function clockText(ms) {
    const s = Math.max(0, Math.ceil(ms / 100) / 10)
    const m = Math.floor(s / 60)
    const rest = s - 60 * m
    return m >= 1 ? `${m}:${String(Math.floor(rest)).padStart(2, "0")}` : rest.toFixed(1)
}

function name(side) {
    return side === "deepred" ? "Deep Red" : "Human"
}

function pawns(t) {
    if (t.mate !== null) return t.mate > 0 ? `mate in ${t.mate}` : `mated in ${-t.mate}`
    return (t.score >= 0 ? "+" : "") + (t.score / 100).toFixed(2)
}

function show(g) {
    const moved = !game || game.id !== g.id || game.fen !== g.fen
    game = g
    if (moved) board.setPosition(g.fen, true)
    // Orientation: the human's colour at the bottom (White if both or none), flip swaps it.
    const humanBlack = g.black === "human" && g.white !== "human"
    const bottomBlack = humanBlack !== flipped
    board.setOrientation(bottomBlack ? COLOR.black : COLOR.white)
    const [top, bottom] = bottomBlack ? ["white", "black"] : ["black", "white"]
    $("top-name").textContent = `${name(g[top])} (${top})`
    $("bottom-name").textContent = `${name(g[bottom])} (${bottom})`
    for (const [el, color] of [["top-clock", top], ["bottom-clock", bottom]]) {
        const c = $(el)
        c.hidden = !g.clock
        if (g.clock) {
            c.textContent = clockText(g.clock[color === "white" ? 0 : 1])
            c.classList.toggle("running", !g.result && g.turn === color)
        }
    }
    // The moves, numbered from the start position.
    const blackFirst = g.start_fen.split(" ")[1] === "b"
    const first = parseInt(g.start_fen.split(" ")[5] || "1", 10)
    $("movelist").textContent = g.moves.map((m, i) => {
        const ply = i + (blackFirst ? 1 : 0)
        const n = first + Math.floor(ply / 2)
        return (ply % 2 === 0 ? `${n}. ` : (i === 0 ? `${n}... ` : "")) + m.san
    }).join(" ")
    $("status").textContent = g.result
        ? `${g.result} (${g.termination})`
        : `${g.turn === "white" ? "White" : "Black"} to move` + (g.searching ? ": Deep Red is thinking" : "")
    const t = g.thinking
    $("thinking").textContent = t ? `Deep Red: depth ${t.depth}, ${pawns(t)}, ${t.nodes} nodes; ${t.pv.join(" ")}` : ""
    $("message").textContent = g.message || ""
    $("learned").textContent = g.learned ? `The game: ${g.learned}.` : ""
    const moves = g.moves.map((m) => m.uci).join(",")
    const start = g.start_fen === START ? "" : `fen=${encodeURIComponent(g.start_fen)}&`
    $("pgn-link").href = `/api/games/${g.id}/pgn`
    $("pgn-link").hidden = g.moves.length === 0
    $("explore-link").href = `/explore?${start}moves=${moves}`
    $("explore-link").hidden = !g.result
    const humanToMove = Object.keys(g.dests).length > 0
    // A take-back undoes a human's last move: none made yet (Deep Red's first move as White,
    // or Deep Red against itself), nothing to take back.
    const mover = (i) => ((i % 2 === 0) !== blackFirst ? "white" : "black")
    const humanMoved = g.moves.some((_, i) => g[mover(i)] === "human")
    $("takeback").disabled = !!g.result || !humanMoved
    $("resign").disabled = $("draw").disabled = !!g.result || (g.white !== "human" && g.black !== "human")
    board.disableMoveInput()
    if (humanToMove) board.enableMoveInput(inputHandler, g.turn === "white" ? COLOR.white : COLOR.black)
    clearTimeout(timer)
    if (!g.result && (g.searching || g.clock || !humanToMove)) {
        timer = setTimeout(async () => {
            try {
                show(await call("GET", `/api/games/${g.id}`))
            } catch (err) {
                showError(err.message)
            }
        }, 250)
    }
}

$("setup").addEventListener("submit", async (e) => {
    e.preventDefault()
    const number = (id) => ($(id).value.trim() === "" ? null : Number($(id).value))
    const noClock = $("noclock").checked
    const request = {
        white: $("white").value,
        black: $("black").value,
        minutes: noClock ? null : number("minutes"),
        increment: noClock ? 0 : (number("increment") || 0),
        movetime_ms: noClock ? Math.round(1000 * (number("movetime") || 1)) : null,
        elo: number("elo"),
        evaluator: $("evaluator").value,
        fen: $("start-fen").value.trim() || null,
    }
    try {
        flipped = false
        game = null
        show(await call("POST", "/api/games", request))
        showError("")
    } catch (err) {
        showError(err.message)
    }
})
$("takeback").addEventListener("click", () => act("POST", "/takeback"))
$("resign").addEventListener("click", () => act("POST", "/resign"))
$("draw").addEventListener("click", () => act("POST", "/draw"))
$("flip").addEventListener("click", () => {
    flipped = !flipped
    if (game) show(game)
})
