#!/bin/sh
# Prepares the tree for goreleaser (its before-hook):
#   1. checks GW_DEFAULT_BASE_URL, the base URL baked into the binaries, so a
#      typo fails the release instead of shipping to every user;
#   2. writes gw's shell completions into DIR (default: completions) for the
#      archives and packages.
# Usage: scripts/release-prep.sh [DIR]
set -eu

dir=${1:-completions}
cd "$(dirname "$0")/.."

url=${GW_DEFAULT_BASE_URL:-}
if [ -n "$url" ]; then
	case $url in
	*[[:space:]]*) problem="contains whitespace" ;;
	*/) problem="ends in a slash" ;;
	https://*/v1) problem="" ;;
	https://*) problem="does not end in /v1 (the service's API lives under /v1)" ;;
	*) problem="does not start with https://" ;;
	esac
	if [ -n "$problem" ]; then
		echo "release-prep: GW_DEFAULT_BASE_URL \"$url\" $problem; set it to the service's canonical base URL, e.g. https://gateway.example.com/v1" >&2
		exit 1
	fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Build once for the host; the completion scripts are the same for every target.
go build -o "$tmp/gw" ./cmd/gw

mkdir -p "$dir"
"$tmp/gw" completion bash >"$dir/gw.bash"
"$tmp/gw" completion zsh >"$dir/_gw"
"$tmp/gw" completion fish >"$dir/gw.fish"
"$tmp/gw" completion powershell >"$dir/gw.ps1"

for f in gw.bash _gw gw.fish gw.ps1; do
	if [ ! -s "$dir/$f" ]; then
		echo "release-prep: $dir/$f is empty; does 'gw completion' work?" >&2
		exit 1
	fi
done
