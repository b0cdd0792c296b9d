// Watch it learn: what a running loop said last, the store's growth (games learned against
// time, drawn as an SVG line), the generations of the learned net that `deepred learn` promoted
// into the store, and match results against references (the loop's generations.csv, learning
// curves) as Elo with error bars. Read every ten
// seconds, so a running loop or a game being learned shows up.
const $ = (id) => document.getElementById(id)
const SVG = "http://www.w3.org/2000/svg"

function el(name, attrs, text) {
    const e = document.createElementNS(SVG, name)
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
    if (text !== undefined) e.textContent = text
    return e
}

const COLORS = ["#7a1f1f", "#1f4e7a", "#2e7a1f", "#7a5a1f", "#5a1f7a", "#1f7a6e"]

// Match results as Elo with 95% error bars: a CSV with columns `elo`, `elo_95`, x in
// `generation` or `games_learned`, one line per `opponent` or `learning` value.
function eloChart(csv) {
    const [head, ...lines] = csv.trim().split("\n")
    const cols = head.split(",")
    const col = (name) => cols.indexOf(name)
    const xi = col("generation") >= 0 ? col("generation") : col("games_learned")
    const si = col("opponent") >= 0 ? col("opponent") : col("learning")
    const ei = col("elo"), wi = col("elo_95")
    if (xi < 0 || ei < 0 || wi < 0) throw new Error("not a curve: columns " + head)
    const series = new Map()
    for (const line of lines) {
        const f = line.split(",")
        const x = Number(f[xi]), y = Number(f[ei]), w = Number(f[wi])
        if (!Number.isFinite(x) || !Number.isFinite(y)) continue
        const key = si >= 0 ? f[si] : ""
        if (!series.has(key)) series.set(key, [])
        series.get(key).push([x, y, Number.isFinite(w) ? w : 0])
    }
    const all = [...series.values()].flat()
    const w = 640, h = 300, left = 60, bottom = 40, top = 10, right = 150
    const svg = el("svg", {viewBox: `0 0 ${w} ${h}`, width: "100%", role: "img"})
    const x0 = Math.min(...all.map((p) => p[0])), x1 = Math.max(...all.map((p) => p[0]), x0 + 1)
    const y0 = Math.min(0, ...all.map((p) => p[1] - p[2])), y1 = Math.max(1, ...all.map((p) => p[1] + p[2]))
    const X = (x) => left + ((x - x0) / (x1 - x0)) * (w - left - right)
    const Y = (y) => h - bottom - ((y - y0) / (y1 - y0)) * (h - top - bottom)
    svg.append(el("line", {x1: left, y1: Y(0), x2: w - right, y2: Y(0), stroke: "#999", "stroke-dasharray": "4 3"}))
    svg.append(el("line", {x1: left, y1: top, x2: left, y2: h - bottom, stroke: "#444"}))
    svg.append(el("line", {x1: left, y1: h - bottom, x2: w - right, y2: h - bottom, stroke: "#444"}))
    for (const v of [y0, 0, y1]) svg.append(el("text", {x: left - 6, y: Y(v) + 4, "text-anchor": "end", "font-size": 12}, Math.round(v)))
    for (const v of [x0, x1]) svg.append(el("text", {x: X(v), y: h - bottom + 16, "text-anchor": "middle", "font-size": 12}, v))
    svg.append(el("text", {x: (left + w - right) / 2, y: h - 6, "text-anchor": "middle", "font-size": 13}, cols[xi].replace("_", " ")))
    svg.append(el("text", {x: 14, y: (top + h - bottom) / 2, "text-anchor": "middle", "font-size": 13, transform: `rotate(-90 14 ${(top + h - bottom) / 2})`}, "Elo (95%)"))
    let i = 0
    for (const [key, points] of series) {
        const color = COLORS[i % COLORS.length]
        points.sort((a, b) => a[0] - b[0])
        for (const [x, y, e] of points) {
            svg.append(el("line", {x1: X(x), y1: Y(y - e), x2: X(x), y2: Y(y + e), stroke: color}))
            svg.append(el("circle", {cx: X(x), cy: Y(y), r: 3, fill: color}))
        }
        const d = points.map((p, k) => `${k ? "L" : "M"}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(" ")
        svg.append(el("path", {d, fill: "none", stroke: color, "stroke-width": 2}))
        svg.append(el("text", {x: w - right + 8, y: top + 14 + 16 * i, "font-size": 12, fill: color}, (cols[si] === "learning" ? "learning " : "") + key))
        i++
    }
    return svg
}

// A line chart of points [x, y] with axis labels.
function chart(points, xLabel, yLabel) {
    const w = 640, h = 300, left = 60, bottom = 40, top = 10, right = 10
    const svg = el("svg", {viewBox: `0 0 ${w} ${h}`, width: "100%", role: "img"})
    const xs = points.map((p) => p[0]), ys = points.map((p) => p[1])
    const x1 = Math.max(...xs, 1e-9), y1 = Math.max(...ys, 1)
    const X = (x) => left + (x / x1) * (w - left - right)
    const Y = (y) => h - bottom - (y / y1) * (h - top - bottom)
    svg.append(el("line", {x1: left, y1: h - bottom, x2: w - right, y2: h - bottom, stroke: "#444"}))
    svg.append(el("line", {x1: left, y1: top, x2: left, y2: h - bottom, stroke: "#444"}))
    for (const f of [0, 0.5, 1]) {
        svg.append(el("text", {x: X(f * x1), y: h - bottom + 16, "text-anchor": "middle", "font-size": 12}, (x1 < 10 ? Number((f * x1).toPrecision(2)) : Math.round(f * x1))))
        svg.append(el("text", {x: left - 6, y: Y(f * y1) + 4, "text-anchor": "end", "font-size": 12}, Math.round(f * y1)))
    }
    svg.append(el("text", {x: (left + w) / 2, y: h - 6, "text-anchor": "middle", "font-size": 13}, xLabel))
    svg.append(el("text", {x: 14, y: (top + h - bottom) / 2, "text-anchor": "middle", "font-size": 13, transform: `rotate(-90 14 ${(top + h - bottom) / 2})`}, yLabel))
    const d = points.map((p, i) => `${i ? "L" : "M"}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(" ")
    svg.append(el("path", {d, fill: "none", stroke: "#7a1f1f", "stroke-width": 2}))
    return svg
}

async function getJson(url) {
    const r = await fetch(url)
    const body = await r.json().catch(() => ({error: `${r.status} ${r.statusText}`}))
    if (!r.ok) throw new Error(body.error || `${r.status}`)
    return body
}

async function refresh() {
    try {
        const g = await getJson("/api/growth")
        const last = g.points[g.points.length - 1]
        $("growth-summary").textContent = g.games
            ? `${g.games} games learned over ${last[0].toFixed(1)} hours; ${last[2]} moves of the win/draw/loss tree counted.`
            : "No game learned yet."
        $("growth").replaceChildren(...(g.games ? [chart(g.points.map((p) => [p[0], p[1]]), "hours since the first game", "games learned")] : []))
        const status = await getJson("/api/learning")
        $("loop").textContent = !status
            ? "No deepred learn has run on this store."
            : status.age_s < 600
                ? `deepred learn, ${status.age_s} s ago: ${status.line}`
                : `deepred learn said last, ${new Date(status.at * 1000).toLocaleString()}: ${status.line}`
        const gens = await getJson("/api/generations")
        $("generations-summary").textContent = gens.length
            ? `${gens.length} generations promoted by deepred learn; the newest plays when EvalFile is auto.`
            : "No generation promoted into this store yet (deepred learn promotes them)."
        const body = $("generations").tBodies[0]
        body.replaceChildren()
        for (const n of gens.slice().reverse()) {
            const tr = document.createElement("tr")
            const cells = [n.generation, n.parent ?? "", new Date(n.created_at * 1000).toLocaleString(), n.gate ?? "", n.positions ?? ""]
            for (const c of cells) {
                const td = document.createElement("td")
                td.textContent = String(c)
                tr.append(td)
            }
            body.append(tr)
        }
        const curves = await getJson("/api/curves")
        $("curves-summary").textContent = curves.length
            ? ""
            : "No match results to draw: the learning loop's generations.csv (--learn-dir) and learning curves (--curve FILE) appear here."
        const boxes = []
        for (const c of curves) {
            const box = document.createElement("div")
            const title = document.createElement("p")
            title.className = "small"
            title.textContent = c.name
            box.append(title)
            try {
                if (c.error) throw new Error(c.error)
                const chartBox = document.createElement("div")
                chartBox.className = "chart"
                chartBox.append(eloChart(c.csv))
                box.append(chartBox)
            } catch (err) {
                const p = document.createElement("p")
                p.className = "error"
                p.textContent = `${c.name}: ${err.message}`
                box.append(p)
            }
            boxes.push(box)
        }
        $("curves").replaceChildren(...boxes)
        $("error").hidden = true
    } catch (err) {
        $("error").textContent = err.message
        $("error").hidden = false
    }
}

refresh()
setInterval(refresh, 10000)
