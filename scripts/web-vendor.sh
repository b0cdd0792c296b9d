#!/usr/bin/env bash
# Rebuilds assets/web/vendor from web/package-lock.json: the board of `deepred web`
# (cm-chessboard, MIT, no dependencies), installed by npm at the locked version and copied as it
# ships (ES modules, CSS, SVG sprites). The binary serves these files; nothing loads from a CDN.
# Run after changing web/package.json; commit the result.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT/web"
npm ci --ignore-scripts --no-audit --no-fund
src=node_modules/cm-chessboard
out="$ROOT/assets/web/vendor/cm-chessboard"
rm -rf "$out"
mkdir -p "$out/assets/pieces" "$out/assets/extensions"
cp "$src/LICENSE" "$src/package.json" "$out/"
cp -r "$src/src" "$out/src"
find "$out/src" -name README.md -delete
cp "$src/assets/chessboard.css" "$src/assets/pieces/standard.svg" "$out/assets/"
mv "$out/assets/standard.svg" "$out/assets/pieces/standard.svg"
for ext in markers promotion-dialog arrows; do
    mkdir -p "$out/assets/extensions/$ext"
    cp "$src/assets/extensions/$ext/"*.css "$src/assets/extensions/$ext/"*.svg "$out/assets/extensions/$ext/" 2>/dev/null || true
done
echo "assets/web/vendor/cm-chessboard: $(jq -r .version "$out/package.json" 2>/dev/null || grep -m1 '"version"' "$out/package.json")"
