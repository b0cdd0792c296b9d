// The explorer of `deepred web`: the board (cm-chessboard), the path walked from a start
// position, and what the experience store knows of the position on the board. The server
// checks every move; this script only asks and draws. The state lives in the URL
// (?fen=...&moves=e2e4,e7e5), so a position can be linked to.
import {COLOR, MARKER_TYPE, START, makeBoard, moveInput} from "./board.js"

const $ = (id) => document.getElementById(id)

const state = {
    startFen: "",   // "" is the standard start position
    moves: [],      // UCI moves from the start
    data: null,     // the last /api/explore answer
}

const board = makeBoard($("board"))

function showError(text) {
    const e = $("error")
    e.textContent = text || ""
    e.hidden = !text
}

function query(extra) {
    const p = new URLSearchParams()
    if (state.startFen) p.set("fen", state.startFen)
    if (state.moves.length) p.set("moves", state.moves.join(","))
    for (const [k, v] of Object.entries(extra || {})) p.set(k, v)
    return p.toString()
}

async function getJson(url, options) {
    const r = await fetch(url, options)
    const body = await r.json().catch(() => ({error: `${r.status} ${r.statusText}`}))
    if (!r.ok) throw new Error(body.error || `${r.status} ${r.statusText}`)
    return body
}

// Asks the server for the position of the path; on an error the previous path comes back.
async function load(startFen, moves, push = true) {
    const previous = {startFen: state.startFen, moves: state.moves}
    state.startFen = startFen
    state.moves = moves
    try {
        const data = await getJson("/api/explore?" + query())
        state.data = data
        showError("")
        $("choice").hidden = true
        if (push) history.replaceState(null, "", "/explore?" + query())
        draw(data)
    } catch (err) {
        state.startFen = previous.startFen
        state.moves = previous.moves
        showError(err.message)
    }
}

function pct(x) {
    return (100 * x).toFixed(1) + "%"
}

function pawns(cp) {
    return cp === null || cp === undefined ? "" : (cp >= 0 ? "+" : "") + (cp / 100).toFixed(2)
}

function bar(w, d, b) {
    const n = w + d + b
    const el = document.createElement("div")
    el.className = "bar"
    for (const [cls, k] of [["w", w], ["d", d], ["b", b]]) {
        const s = document.createElement("span")
        s.className = cls
        const share = n ? (100 * k) / n : 0
        s.style.width = share + "%"
        if (share >= 12) s.textContent = Math.round(share) + "%"
        s.title = `${k} (${share.toFixed(1)}%)`
        el.append(s)
    }
    return el
}

function draw(d) {
    board.setPosition(d.fen, true)
    board.removeMarkers()
    $("fen").value = d.fen
    // The path: each move goes back to the position after it.
    const path = $("path")
    path.replaceChildren()
    const root = document.createElement("a")
    root.href = "#"
    root.textContent = "start"
    root.dataset.ply = "0"
    path.append(root)
    const blackFirst = d.start_fen.split(" ")[1] === "b"
    const firstNumber = parseInt(d.start_fen.split(" ")[5] || "1", 10)
    d.path.forEach((m, i) => {
        const a = document.createElement("a")
        a.href = "#"
        const ply = i + (blackFirst ? 1 : 0)
        const number = firstNumber + Math.floor(ply / 2)
        a.textContent = (ply % 2 === 0 ? number + ". " : (i === 0 ? number + "... " : "")) + m.san
        a.dataset.ply = String(i + 1)
        if (i === d.path.length - 1) a.className = "current"
        path.append(a)
    })
    // The position's record.
    const summary = $("summary")
    summary.replaceChildren()
    const line = document.createElement("p")
    if (d.game_over) line.textContent = `Game over: ${d.game_over}. `
    line.append(d.games ? `${d.games} games from this position (${d.turn} to move)` : `No learned game reached this position (${d.turn} to move).`)
    summary.append(line)
    if (d.games) summary.append(bar(d.white, d.draws, d.black))
    // The known moves.
    const body = $("moves").tBodies[0]
    body.replaceChildren()
    for (const m of d.moves) {
        const tr = document.createElement("tr")
        tr.dataset.uci = m.uci
        const cells = [m.san, String(m.games), null, pct(m.score), pct(m.confidence), pawns(m.net_after)]
        cells.forEach((text, i) => {
            const td = document.createElement("td")
            if (i === 2) td.append(bar(m.white, m.draws, m.black))
            else td.textContent = text
            tr.append(td)
        })
        body.append(tr)
    }
    const mem = d.memory
    $("memory").textContent = mem
        ? `Search memory: ${mem.san || "?"}, score ${mem.score} cp at depth ${mem.depth}` + (mem.learned ? `, learned ${mem.learned >= 0 ? "+" : ""}${mem.learned} cp` : "")
        : "Search memory: nothing remembered here."
    $("book").textContent = d.book
        ? `Book (ExperienceBook): ${d.book.san}, ${d.book.games} games, confidence ${pct(d.book.confidence)}`
        : "Book (ExperienceBook): too few games here; Deep Red searches."
    $("net").textContent = d.net === null ? `Net: ${d.net_name}` : `Net: ${pawns(d.net)} (White's view), ${d.net_name}`
}

function walk(uci) {
    load(state.startFen, [...state.moves, uci])
}

board.enableMoveInput(moveInput(board, () => state.data, walk))

$("moves").tBodies[0].addEventListener("click", (e) => {
    const tr = e.target.closest("tr")
    if (tr && tr.dataset.uci) walk(tr.dataset.uci)
})
$("path").addEventListener("click", (e) => {
    const a = e.target.closest("a")
    if (!a) return
    e.preventDefault()
    load(state.startFen, state.moves.slice(0, parseInt(a.dataset.ply, 10)))
})
$("start").addEventListener("click", () => load(state.startFen, []))
$("back").addEventListener("click", () => load(state.startFen, state.moves.slice(0, -1)))
$("flip").addEventListener("click", () => {
    board.setOrientation(board.getOrientation() === COLOR.white ? COLOR.black : COLOR.white)
})
$("fen-form").addEventListener("submit", (e) => {
    e.preventDefault()
    const fen = $("fen").value.trim()
    load(fen === START ? "" : fen, [])
})
$("pgn-form").addEventListener("submit", async (e) => {
    e.preventDefault()
    try {
        const game = await getJson("/api/pgn", {method: "POST", body: $("pgn").value, headers: {"Content-Type": "text/plain"}})
        load(game.start_fen === START ? "" : game.start_fen, game.moves)
    } catch (err) {
        showError(err.message)
    }
})
$("choose").addEventListener("click", async () => {
    const box = $("choice")
    box.hidden = false
    box.textContent = "Deep Red is thinking..."
    try {
        const c = await getJson("/api/choose?" + query())
        if (!c) {
            box.textContent = "No move: the game is over."
            return
        }
        const score = c.mate !== null ? `mate in ${c.mate}` : c.score !== null ? `${pawns(c.score)} for the side to move` : ""
        box.textContent = `Deep Red plays ${c.san} (${c.source}): ${c.why}` + (score ? `; ${score}` : "") + (c.pv.length ? `; line ${c.pv.join(" ")}` : "")
        board.removeMarkers(MARKER_TYPE.framePrimary)
        board.addMarker(MARKER_TYPE.framePrimary, c.uci.slice(0, 2))
        board.addMarker(MARKER_TYPE.framePrimary, c.uci.slice(2, 4))
    } catch (err) {
        box.textContent = ""
        box.hidden = true
        showError(err.message)
    }
})

const params = new URLSearchParams(location.search)
load(params.get("fen") || "", (params.get("moves") || "").split(",").filter(Boolean))
