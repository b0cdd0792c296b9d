// The board both pages share: cm-chessboard with the markers and the promotion dialog, and a
// move input that accepts only the moves the server listed (`dests`: origin square -> target
// squares), asks for the piece of a promotion, and hands the move on in UCI.
import {Chessboard, COLOR, INPUT_EVENT_TYPE} from "./vendor/cm-chessboard/src/Chessboard.js"
import {Markers, MARKER_TYPE} from "./vendor/cm-chessboard/src/extensions/markers/Markers.js"
import {PromotionDialog, PROMOTION_DIALOG_RESULT_TYPE} from "./vendor/cm-chessboard/src/extensions/promotion-dialog/PromotionDialog.js"

export {COLOR, MARKER_TYPE}
export const START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

export function makeBoard(element) {
    return new Chessboard(element, {
        position: START,
        assetsUrl: "/assets/vendor/cm-chessboard/assets/",
        style: {pieces: {file: "pieces/standard.svg"}, animationDuration: 150},
        extensions: [{class: Markers, props: {autoMarkers: MARKER_TYPE.frame}}, {class: PromotionDialog}],
    })
}

// A move input handler: `position()` gives the current `{fen, turn, dests}` (or null: no
// input), `play(uci)` takes a legal move.
export function moveInput(board, position, play) {
    return (event) => {
        const p = position()
        if (!p) return false
        const targets = p.dests[event.squareFrom] || []
        if (event.type === INPUT_EVENT_TYPE.moveInputStarted) {
            for (const sq of targets) event.chessboard.addMarker(MARKER_TYPE.dot, sq)
            return targets.length > 0
        }
        if (event.type === INPUT_EVENT_TYPE.validateMoveInput) {
            event.chessboard.removeMarkers(MARKER_TYPE.dot)
            if (!targets.includes(event.squareTo)) return false
            const pawn = event.piece && event.piece[1] === "p"
            if (pawn && (event.squareTo[1] === "8" || event.squareTo[1] === "1")) {
                const color = p.turn === "white" ? COLOR.white : COLOR.black
                board.showPromotionDialog(event.squareTo, color, (result) => {
                    if (result.type === PROMOTION_DIALOG_RESULT_TYPE.pieceSelected) {
                        play(event.squareFrom + event.squareTo + result.piece[1])
                    } else {
                        board.setPosition(p.fen, false)
                    }
                })
                return true
            }
            play(event.squareFrom + event.squareTo)
            return true
        }
        if (event.type === INPUT_EVENT_TYPE.moveInputCanceled) event.chessboard.removeMarkers(MARKER_TYPE.dot)
        return true
    }
}
