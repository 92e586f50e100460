#!/bin/sh
# Installs gw from a release: picks the archive for this OS and CPU, checks it
# against the release's checksums.txt and puts the binary in ~/.local/bin.
#
#   curl -fsSL https://github.com/modelgateway/gw/releases/latest/download/install.sh | sh
#   curl -fsSL .../install.sh | sh -s -- --version 1.2.3 --prefix /usr/local
#
# Run with --help for the options.
set -eu

REPO_URL=https://github.com/modelgateway/gw

usage() {
	cat <<EOF
Usage: install.sh [--prefix DIR] [--version VERSION] [--url URL]

Installs gw into DIR/bin (and its shell completions into DIR/share).

Options:
  --prefix DIR       where to install (default: \$GW_INSTALL_PREFIX or ~/.local)
  --version VERSION  the release to install, e.g. 1.2.3 (default: \$GW_VERSION or the latest)
  --url URL          where the release files are: a URL (or directory) holding checksums.txt
                     and the archives (default: \$GW_INSTALL_URL or $REPO_URL/releases)
  -h, --help         show this help
EOF
}

say() { printf '%s\n' "$*"; }
fail() {
	printf 'install.sh: error: %s\n' "$*" >&2
	exit 1
}

prefix=${GW_INSTALL_PREFIX:-}
version=${GW_VERSION:-}
url=${GW_INSTALL_URL:-}

while [ $# -gt 0 ]; do
	case $1 in
	--prefix | --version | --url)
		[ $# -ge 2 ] || fail "$1 needs a value; see --help"
		opt=$1
		val=$2
		shift 2
		;;
	--prefix=* | --version=* | --url=*)
		opt=${1%%=*}
		val=${1#*=}
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		fail "unknown option '$1'; see --help"
		;;
	esac
	[ -n "$val" ] || fail "$opt needs a value; see --help"
	case $opt in
	--prefix) prefix=$val ;;
	--version) version=$val ;;
	--url) url=$val ;;
	esac
done

if [ -z "$prefix" ]; then
	[ -n "${HOME:-}" ] || fail "HOME is not set; pass --prefix DIR"
	prefix=$HOME/.local
fi
version=${version#v}

# --- platform ---------------------------------------------------------------

os=$(uname -s)
case $os in
Linux) os=linux ;;
Darwin) os=darwin ;;
MINGW* | MSYS* | CYGWIN* | Windows_NT)
	fail "this installer is for Linux and macOS; on Windows run 'scoop install gw' or download the zip from $REPO_URL/releases"
	;;
*) fail "no gw release for operating system '$os' (there are builds for Linux, macOS and Windows); build from source with: go install github.com/modelgateway/gw/cmd/gw@latest" ;;
esac

arch=$(uname -m)
case $arch in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) fail "no gw release for CPU architecture '$arch' (there are builds for amd64 and arm64); build from source with: go install github.com/modelgateway/gw/cmd/gw@latest" ;;
esac
# A shell running under Rosetta reports x86_64 on Apple silicon; the native build is better.
if [ "$os" = darwin ] && [ "$arch" = amd64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
	arch=arm64
fi

# --- where the release files are ---------------------------------------------

if [ -z "$url" ]; then
	if [ -n "$version" ]; then
		url=$REPO_URL/releases/download/v$version
	else
		url=$REPO_URL/releases/latest/download
	fi
fi
url=${url%/}

if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsSL --retry 2 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -q -O "$2" "$1"; }
else
	fail "need curl or wget to download gw"
fi

if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | awk '{print $1}'; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | awk '{print $1}'; }
elif command -v openssl >/dev/null 2>&1; then
	sha256() { openssl dgst -sha256 "$1" | awk '{print $NF}'; }
else
	fail "need sha256sum, shasum or openssl to verify the download"
fi

# A local directory works too (e.g. goreleaser's dist/), which helps testing a build before release.
get() {
	case $1 in
	http://* | https://*) fetch "$1" "$2" ;;
	file://*) cp "${1#file://}" "$2" ;;
	*) cp "$1" "$2" ;;
	esac
}

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t gw-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# Why a download failed, in brackets, when the downloader said (wget -q says nothing).
why() {
	w=$(tr '\n' ' ' <"$tmp/err" | sed 's/ *$//')
	[ -z "$w" ] || printf ' (%s)' "$w"
}

get "$url/checksums.txt" "$tmp/checksums.txt" 2>"$tmp/err" ||
	fail "could not download $url/checksums.txt$(why)${version:+; is $version a released version?}"

# Each line: "<sha256>  <file name>". The archive is gw_<version>_<os>_<arch>.tar.gz.
suffix=_${os}_${arch}.tar.gz
if [ -n "$version" ]; then
	want=gw_$version$suffix
	line=$(awk -v n="$want" '{f=$2; sub(/^\*/, "", f); if (f == n) {print $1, f; exit}}' "$tmp/checksums.txt")
	[ -n "$line" ] || fail "$url/checksums.txt lists no $want: is $version a released version with a $os/$arch build?"
else
	line=$(awk -v s="$suffix" '{f=$2; sub(/^\*/, "", f); if (substr(f, 1, 3) == "gw_" && length(f) > length(s) + 3 && substr(f, length(f) - length(s) + 1) == s) {print $1, f; exit}}' "$tmp/checksums.txt")
	[ -n "$line" ] || fail "$url/checksums.txt lists no gw archive for $os/$arch"
fi
expected=${line%% *}
archive=${line#* }
found_version=${archive#gw_}
found_version=${found_version%"$suffix"}

say "Downloading gw $found_version for $os/$arch from $url"
get "$url/$archive" "$tmp/$archive" 2>"$tmp/err" ||
	fail "could not download $url/$archive$(why)"

actual=$(sha256 "$tmp/$archive")
if [ "$(printf '%s' "$expected" | tr 'A-F' 'a-f')" != "$actual" ]; then
	fail "checksum mismatch for $archive: checksums.txt says $expected, the download is $actual; the file is corrupt or was tampered with, so nothing was installed"
fi

mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" || fail "could not unpack $archive"
[ -f "$tmp/x/gw" ] || fail "$archive has no gw binary at its top level"

# --- install -------------------------------------------------------------------

bindir=$prefix/bin
mkdir -p "$bindir" || fail "cannot create $bindir; choose another --prefix"
# Copy next to the target, then rename: a running gw is never left half-written.
cp "$tmp/x/gw" "$bindir/.gw.new.$$" || fail "cannot write to $bindir; choose another --prefix or run with the rights to write there"
chmod 0755 "$bindir/.gw.new.$$"
mv -f "$bindir/.gw.new.$$" "$bindir/gw"

# Completions go where bash-completion, zsh (with fpath set) and fish look under a prefix.
share=$prefix/share
if [ -d "$tmp/x/completions" ]; then
	{
		mkdir -p "$share/bash-completion/completions" "$share/zsh/site-functions" "$share/fish/vendor_completions.d" &&
			cp "$tmp/x/completions/gw.bash" "$share/bash-completion/completions/gw" &&
			cp "$tmp/x/completions/_gw" "$share/zsh/site-functions/_gw" &&
			cp "$tmp/x/completions/gw.fish" "$share/fish/vendor_completions.d/gw.fish"
	} 2>/dev/null || say "note: shell completions were not installed under $share (gw completion --help shows how to load them)"
fi

say "Installed $bindir/gw"
"$bindir/gw" version || fail "$bindir/gw does not run on this machine"

case ":${PATH:-}:" in
*":$bindir:"*)
	other=$(command -v gw 2>/dev/null || true)
	if [ -n "$other" ] && [ "$other" != "$bindir/gw" ]; then
		say ""
		say "Note: 'gw' on your PATH is $other, which comes before $bindir."
	fi
	;;
*)
	# The hint is pasted into a shell: keep $HOME and ~ for it to expand.
	# shellcheck disable=SC2016
	case $bindir in
	"${HOME:-/nonexistent}"/*) shown='$HOME'${bindir#"$HOME"} ;;
	*) shown=$bindir ;;
	esac
	say ""
	say "$bindir is not on your PATH. Add it:"
	case ${SHELL:-} in
	*/fish) say "  fish_add_path $shown" ;;
	*/zsh) say "  echo 'export PATH=\"$shown:\$PATH\"' >> ~/.zshrc" ;;
	*/bash)
		# shellcheck disable=SC2088
		if [ "$os" = darwin ]; then rc='~/.bash_profile'; else rc='~/.bashrc'; fi
		say "  echo 'export PATH=\"$shown:\$PATH\"' >> $rc"
		;;
	*) say "  export PATH=\"$shown:\$PATH\"   (in your shell's startup file)" ;;
	esac
	say "then open a new terminal."
	;;
esac

say ""
say "Next: gw auth login"
