#!/bin/sh
# Compiles every package and links gw for each released platform (Linux, macOS,
# Windows × amd64, arm64) — the cheap check, on every CI run, that no
# platform-specific file (keychain, terminal, signals) breaks another platform.
# Usage: scripts/cross-compile.sh [OUTDIR]   (default: a temporary directory, removed afterwards)
set -eu
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then
	out=$1
	mkdir -p "$out"
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT INT TERM
fi

failed=""
for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
	goos=${target%/*}
	goarch=${target#*/}
	printf 'cross-compile: %-14s ' "$target"
	# -o DIR/ links every main package (gw and the stand-in) and compiles all others.
	if CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -o "$out/${goos}_$goarch/" ./... 2>"$out/$goos-$goarch.log"; then
		echo ok
	else
		echo FAILED
		sed 's/^/    /' "$out/$goos-$goarch.log" >&2
		failed="$failed $target"
	fi
done

if [ -n "$failed" ]; then
	echo "cross-compile: failed for:$failed" >&2
	exit 1
fi
