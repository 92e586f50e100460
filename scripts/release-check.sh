#!/bin/sh
# Rehearses a release without publishing anything:
#   1. goreleaser check — the config is valid and uses no deprecated keys;
#   2. goreleaser release --snapshot --clean — all six builds, archives, checksums,
#      deb/rpm packages and the Homebrew cask / Scoop manifests, into dist/;
#   3. the contents of dist/: every archive, package and manifest is there and
#      carries the binary, README, LICENSE and completions;
#   4. scripts/install.sh against dist/ served on 127.0.0.1: it installs a gw
#      that runs and knows its version and default base URL, and it refuses a
#      corrupted archive.
# Needs Go; installs goreleaser (pinned below) into $(go env GOPATH)/bin when missing.
# Usage: scripts/release-check.sh
set -eu
cd "$(dirname "$0")/.."

# v2.15.1 is the last goreleaser that builds with Go 1.26 from the module proxy.
GORELEASER_VERSION=v2.15.1
# The release sets the real URL; the rehearsal uses a stand-in to prove it reaches the binary.
GW_DEFAULT_BASE_URL=${GW_DEFAULT_BASE_URL:-https://gateway.example.com/v1}
export GW_DEFAULT_BASE_URL

# first prints the first existing path among its arguments (an unmatched glob stays literal).
first() {
	for f in "$@"; do
		if [ -e "$f" ]; then
			echo "$f"
			return
		fi
	done
}
step() { printf '\n==> %s\n' "$*"; }
fail() {
	printf 'release-check: %s\n' "$*" >&2
	exit 1
}

step "goreleaser $GORELEASER_VERSION"
PATH=$PATH:$(go env GOPATH)/bin
if ! goreleaser --version 2>/dev/null | grep -q "GitVersion: *$GORELEASER_VERSION\$"; then
	echo "installing goreleaser $GORELEASER_VERSION (takes a few minutes)"
	go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
	# Go puts it first in GOBIN, else in GOPATH/bin.
	gobin=$(go env GOBIN)
	PATH=${gobin:-$(go env GOPATH)/bin}:$PATH
	goreleaser --version | grep -q "GitVersion: *$GORELEASER_VERSION\$" || fail "goreleaser on PATH is not $GORELEASER_VERSION"
fi

step "goreleaser check"
out=$(goreleaser check 2>&1) || {
	echo "$out" >&2
	fail "goreleaser check failed"
}
echo "$out"
if echo "$out" | grep -qi deprecat; then
	fail ".goreleaser.yaml uses deprecated keys (see above); replace them"
fi

step "goreleaser release --snapshot --clean (GW_DEFAULT_BASE_URL=$GW_DEFAULT_BASE_URL)"
goreleaser release --snapshot --clean

step "contents of dist/"
[ -f dist/checksums.txt ] || fail "dist/checksums.txt is missing"
for target in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64; do
	a=$(first dist/gw_*_"$target".tar.gz)
	[ -n "$a" ] || fail "no archive for $target in dist/"
	list=$(tar -tzf "$a")
	for f in gw README.md LICENSE completions/gw.bash completions/_gw completions/gw.fish; do
		echo "$list" | grep -qx "$f" || fail "$a lacks $f"
	done
	grep -q " $(basename "$a")\$" dist/checksums.txt || fail "checksums.txt does not list $(basename "$a")"
	echo "ok  $a"
done
for target in windows_amd64 windows_arm64; do
	a=$(first dist/gw_*_"$target".zip)
	[ -n "$a" ] || fail "no zip for $target in dist/"
	if command -v unzip >/dev/null 2>&1; then
		list=$(unzip -Z1 "$a")
		for f in gw.exe README.md LICENSE completions/gw.ps1; do
			echo "$list" | grep -qx "$f" || fail "$a lacks $f"
		done
	fi
	echo "ok  $a"
done
# nfpm's conventional names: gw_<version>_<arch>.deb, gw-<version>-1.<arch>.rpm.
for pattern in 'gw_*_amd64.deb' 'gw_*_arm64.deb' 'gw-*.x86_64.rpm' 'gw-*.aarch64.rpm'; do
	# shellcheck disable=SC2086 # the pattern is meant to glob
	p=$(first dist/$pattern)
	[ -n "$p" ] || fail "no package $pattern in dist/"
	list=""
	case $p in
	*.deb) command -v dpkg-deb >/dev/null 2>&1 && list=$(dpkg-deb -c "$p" | awk '{print $NF}' | sed 's|^\.||') ;;
	*.rpm) command -v rpm >/dev/null 2>&1 && list=$(rpm -qlp "$p" 2>/dev/null) ;;
	esac
	if [ -n "$list" ]; then
		for f in /usr/bin/gw /usr/share/bash-completion/completions/gw /usr/share/fish/vendor_completions.d/gw.fish; do
			echo "$list" | grep -qx "$f" || fail "$p lacks $f"
		done
	fi
	echo "ok  $p"
done
[ -f dist/homebrew/Casks/gw.rb ] || fail "the Homebrew cask dist/homebrew/Casks/gw.rb was not generated"
echo "ok  dist/homebrew/Casks/gw.rb"
scoop=$(find dist -name gw.json -path '*scoop*' | head -n 1)
[ -n "$scoop" ] || fail "the Scoop manifest was not generated"
echo "ok  $scoop"

step "install.sh against dist/ on 127.0.0.1"
GW_DIST_DIR=$PWD/dist go test -count=1 -run 'TestInstall_GoreleaserDist' -v ./scripts/

printf '\nrelease-check: all good\n'
