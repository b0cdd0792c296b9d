// `deepred web` in a real browser (headless Chromium driven by playwright-core): the explorer on
// the counts of five games counted by hand, walking the tree by its rows, by moves on the board
// and back along the path, a promotion through the board's dialog, Deep Red's move, a bad FEN
// and a bad PGN each getting their message; then a game against Deep Red played to a checkmate
// by a promotion, learned, and found in the explorer; screenshots for docs/.
// Run by .ci/run on an SQLite store, and by tests/browser.rs on a PostgreSQL one:
//     node web/browser-check.mjs target/release/deepred [SCREENSHOT_DIR] [--db postgresql://...]
// Chromium: $CHROMIUM, else /usr/bin/chromium (Debian's package).
import {chromium} from "playwright-core"
import {spawn, execFileSync} from "node:child_process"
import {mkdtempSync, writeFileSync, readFileSync, rmSync} from "node:fs"
import {tmpdir} from "node:os"
import {join} from "node:path"
import assert from "node:assert/strict"

const args = process.argv.slice(2)
const dbAt = args.indexOf("--db")
// --db URL: an empty store on a PostgreSQL server instead of a new SQLite file (tests/browser.rs).
const serverDb = dbAt >= 0 ? args.splice(dbAt, 2)[1] : null
const [deepred, shots] = args
if (!deepred) {
    console.error("usage: node web/browser-check.mjs DEEPRED [SCREENSHOT_DIR] [--db postgresql://...]")
    process.exit(2)
}

// 1.e4 four times (1-0, two draws, 0-1), 1.d4 once (0-1); after 1.e4: e5 three times, c5 once.
const GAMES = `[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nc6 1/2-1/2

[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nf6 1/2-1/2

[Result "0-1"]

1. e4 c5 2. Nf3 d6 0-1

[Result "0-1"]

1. d4 d5 2. c4 e6 0-1
`

const dir = mkdtempSync(join(tmpdir(), "deepred-browser-"))
const store = serverDb || join(dir, "store.sqlite")
writeFileSync(join(dir, "five.pgn"), GAMES)
const env = {...process.env, DEEPRED_HOME: join(dir, "home")}
execFileSync(deepred, ["import", join(dir, "five.pgn"), "--db", store], {env})
// What the explorer must leave as it was (a server's store is checked by its counts).
const snapshot = () => (serverDb ? null : readFileSync(store))
const before = snapshot()

writeFileSync(join(dir, "curve.csv"), "block,games_learned,learning,score_pct,elo,elo_95\n-,0,off,50.0,0,60\n0,0,on,45.0,-35,60\n1,100,on,60.0,70,60\n")
const server = spawn(deepred, ["web", "--db", store, "--listen", "127.0.0.1:0", "--curve", join(dir, "curve.csv")], {env, stdio: ["ignore", "ignore", "pipe"]})
const base = await new Promise((resolve, reject) => {
    let text = ""
    server.stderr.on("data", (d) => {
        text += d
        const m = text.match(/http:\/\/[0-9.:]+(?=\/)/)
        if (m) resolve(m[0])
    })
    server.on("exit", (code) => reject(new Error(`deepred web exited (${code}): ${text}`)))
    setTimeout(() => reject(new Error(`deepred web did not start: ${text}`)), 20000)
})

const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox"],
})
const page = await browser.newPage({viewport: {width: 1100, height: 800}})
const errors = []
page.on("pageerror", (e) => errors.push(e.message))
page.on("console", (m) => {
    // The bad FEN and PGN below are answered 400 on purpose; the rest is checked by URL.
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text())
})
page.on("response", (r) => {
    const expected = r.status() === 400 && /\/api\/(explore|pgn)/.test(r.url())
    if (r.status() >= 400 && !expected) errors.push(`${r.status()} ${r.url()}`)
})

async function rows() {
    return page.$$eval("#moves tbody tr", (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)))
}
async function row(san) {
    const r = (await rows()).find((cells) => cells[0] === san)
    assert.ok(r, `no row ${san} in ${JSON.stringify(await rows())}`)
    return r
}
async function path() {
    return (await page.textContent("#path")).trim()
}
async function settle() {
    await page.waitForLoadState("networkidle")
    await page.waitForTimeout(250)
}
// Clicks the centre of a square of the board (pieces lie over the squares). The board is drawn
// again after each click, so the square may be between two drawings: wait for it, and ask again.
async function clickSquare(square) {
    const rect = page.locator(`#board rect[data-square="${square}"]`)
    let box = null
    for (let i = 0; i < 50 && !box; i++) {
        await rect.waitFor()
        box = await rect.boundingBox()
        if (!box) await page.waitForTimeout(100)
    }
    assert.ok(box, `square ${square} never drawn`)
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
}
// A move by clicks, its origin then its target. A click that lands while the board is being
// drawn again (after the other side's move, on a slow machine) is lost: click the origin until
// the target's dot shows that the move input has started, then the target.
async function clickMove(from, to) {
    const dot = page.locator(`#board g[data-square="${to}"] .marker-dot`)
    for (let i = 0; ; i++) {
        await clickSquare(from)
        try {
            await dot.waitFor({timeout: 2000})
            break
        } catch (err) {
            if (i === 14) throw new Error(`the move input never started on ${from}: ${err.message}`)
        }
    }
    await clickSquare(to)
}

try {
    await page.goto(base + "/explore")
    await settle()
    assert.match(await page.textContent("#summary"), /5 games from this position/)
    assert.deepEqual((await row("e4")).slice(0, 2), ["e4", "4"])
    assert.deepEqual((await row("d4")).slice(0, 2), ["d4", "1"])
    assert.equal((await row("e4"))[3], "50.0%")
    if (shots) await page.screenshot({path: join(shots, "web-explorer.png"), fullPage: true})

    // Walk by a row, then by the board (click e7, click e5), then back along the path.
    await page.click("#moves tbody tr:has(td:text-is('e4'))")
    await settle()
    assert.equal(await path(), "start1. e4")
    assert.deepEqual((await row("e5")).slice(0, 2), ["e5", "3"])
    assert.deepEqual((await row("c5")).slice(0, 2), ["c5", "1"])
    await clickMove("e7", "e5")
    await settle()
    assert.equal(await path(), "start1. e4e5")
    assert.match(page.url(), /moves=e2e4%2Ce7e5|moves=e2e4,e7e5/)
    assert.deepEqual((await row("Nf3")).slice(0, 2), ["Nf3", "2"])
    // An illegal move on the board is refused: the path stays.
    await clickSquare("e1")
    await clickSquare("e3")
    await settle()
    assert.equal(await path(), "start1. e4e5")
    await page.click("#path a[data-ply='1']")
    await settle()
    assert.equal(await path(), "start1. e4")
    await page.click("#back")
    await settle()
    assert.equal(await path(), "start")

    // A bad FEN and a bad PGN: a message, the board where it was.
    await page.fill("#fen", "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1")
    await page.click("#fen-form button")
    await settle()
    assert.ok(await page.isVisible("#error"))
    assert.match(await page.textContent("#error"), /FEN/)
    assert.equal(await path(), "start")
    await page.fill("#pgn", "1. e4 e5 2. Qxf7 *")
    await page.click("#pgn-form button")
    await settle()
    assert.match(await page.textContent("#error"), /PGN.*Qxf7/)
    // A good PGN walks its moves and clears the message.
    await page.fill("#pgn", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 *")
    await page.click("#pgn-form button")
    await settle()
    assert.ok(!(await page.isVisible("#error")))
    assert.equal(await path(), "start1. e4e52. Qh5Nc63. Bc4Nf6")
    assert.deepEqual((await row("Qxf7#")).slice(0, 2), ["Qxf7#", "1"])

    // A promotion through the board's dialog, from a position set by FEN.
    await page.fill("#fen", "7k/P7/8/8/8/8/8/K7 w - - 0 1")
    await page.click("#fen-form button")
    await settle()
    await clickMove("a7", "a8")
    const knight = page.locator(".promotion-dialog-button-group[data-piece='wn']")
    await knight.waitFor()
    const kb = await knight.boundingBox()
    await page.mouse.click(kb.x + kb.width / 2, kb.y + kb.height / 2)
    await settle()
    assert.equal(await path(), "start1. a8=N")
    assert.equal(await page.inputValue("#fen"), "N6k/8/8/8/8/8/8/K7 b - - 0 1")

    // Deep Red's move: a search finds the mate in one.
    await page.fill("#fen", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    await page.click("#fen-form button")
    await settle()
    await page.click("#choose")
    await page.waitForFunction(() => document.getElementById("choice").textContent.startsWith("Deep Red plays"), null, {timeout: 30000})
    assert.match(await page.textContent("#choice"), /Deep Red plays Rd8# \(search\).*mate in 1/)

    // A phone-width screen: the page fits without scrolling sideways.
    await page.setViewportSize({width: 390, height: 844})
    await page.goto(base + "/explore?moves=e2e4")
    await settle()
    const wide = await page.evaluate(() => document.documentElement.scrollWidth)
    assert.ok(wide <= 390, `the page is ${wide} px wide on a 390 px screen`)
    if (shots) await page.screenshot({path: join(shots, "web-explorer-phone.png"), fullPage: true})

    if (before) assert.ok(snapshot().equals(before), "the explorer wrote the store")

    // Play: a human (White) against Deep Red, to a checkmate by a promotion (Black has only
    // pawn moves), learned into the store and then seen in the explorer.
    await page.setViewportSize({width: 1100, height: 800})
    await page.goto(base + "/play")
    await page.check("#noclock")
    await page.fill("#movetime", "0.05")
    // Deep Red as White: after its first move the human has nothing to take back.
    await page.selectOption("#white", "deepred")
    await page.selectOption("#black", "human")
    await page.click("#new")
    await page.waitForFunction(() => document.getElementById("status").textContent === "Black to move", null, {timeout: 30000})
    assert.ok(await page.isDisabled("#takeback"))
    await page.selectOption("#white", "human")
    await page.selectOption("#black", "deepred")
    await page.fill("#start-fen", "k7/7p/1KP5/8/8/8/8/8 w - - 0 1")
    await page.click("#new")
    await page.waitForFunction(() => document.getElementById("status").textContent === "White to move")
    // Nothing of the human's to take back yet; after a move and Deep Red's reply, there is.
    assert.ok(await page.isDisabled("#takeback"))
    await page.waitForTimeout(200)
    await clickMove("c6", "c7")
    await page.waitForFunction(() => document.getElementById("movelist").textContent.startsWith("1. c7 h"), null, {timeout: 30000})
    await page.waitForFunction(() => document.getElementById("status").textContent === "White to move")
    assert.ok(!(await page.isDisabled("#takeback")))
    await page.waitForTimeout(300)
    await clickMove("c7", "c8")
    const queen = page.locator(".promotion-dialog-button-group[data-piece='wq']")
    await queen.waitFor()
    const qb = await queen.boundingBox()
    await page.mouse.click(qb.x + qb.width / 2, qb.y + qb.height / 2)
    await page.waitForFunction(() => document.getElementById("status").textContent === "1-0 (checkmate)", null, {timeout: 10000})
    assert.match(await page.textContent("#movelist"), /^1\. c7 h[56] 2\. c8=Q#$/)
    await page.waitForFunction(() => document.getElementById("learned").textContent.includes("learned into"), null, {timeout: 10000})
    await page.waitForTimeout(500)
    assert.equal(await page.getAttribute("#board g[data-square='c8']", "data-piece"), "wq")
    if (shots) await page.screenshot({path: join(shots, "web-play.png"), fullPage: true})
    const pgn = await page.evaluate(async () => (await fetch(document.getElementById("pgn-link").href)).text())
    assert.match(pgn, /2\. c8=Q# 1-0/)
    await page.click("#explore-link")
    await settle()
    assert.match(await path(), /^start1\. c7h[56]2\. c8=Q#$/)
    await page.click("#path a[data-ply='0']")
    await settle()
    assert.deepEqual((await row("c7")).slice(0, 2), ["c7", "1"])

    // Watch it learn: the six games (five imported, one played) on the growth chart.
    await page.goto(base + "/learn")
    await page.waitForFunction(() => document.getElementById("growth-summary").textContent.startsWith("6 games learned"))
    assert.equal(await page.locator("#growth svg path").count(), 1)
    // The generations come in their own request: wait for them as for the growth chart.
    await page.waitForFunction(() => document.getElementById("generations-summary").textContent !== "")
    assert.match(await page.textContent("#generations-summary"), /No generation promoted/)
    await page.waitForFunction(() => document.querySelectorAll("#curves svg circle").length === 3)
    assert.match(await page.textContent("#curves"), /learning off.*learning on/)
    if (shots) await page.screenshot({path: join(shots, "web-learn.png"), fullPage: true})

    assert.deepEqual(errors, [])
    console.log("browser check: the explorer, a game and the learning page in headless Chromium: ok")
} finally {
    await browser.close()
    server.kill()
    rmSync(dir, {recursive: true, force: true})
}
