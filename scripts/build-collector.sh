#!/usr/bin/env bash
# Builds the OpenTelemetry Collector that tests/collector runs collector-config/*.yaml in: the
# Collector Builder (ocb) compiles exactly the components listed in collector-builder.yaml, from
# the Go module proxy (`go env GOPROXY`). The binary is cached under
#   ${TRACEGRADE_COLLECTOR_CACHE:-${XDG_CACHE_HOME:-~/.cache}/tracegrade}/otelcol-<release>-<manifest hash>/
# and a second run only prints its path. Prints the binary's path on stdout; the build's output
# goes to stderr. The first build takes minutes (it downloads and compiles a few hundred modules).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
manifest="$here/collector-builder.yaml"
release="$(sed -n 's/^  version: //p' "$manifest")"
command -v go > /dev/null || { echo "build-collector: no 'go' on PATH: install Go 1.26+" >&2; exit 1; }

cache="${TRACEGRADE_COLLECTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tracegrade}"
digest="$(sha256sum "$manifest" | cut -c1-12)"
out="$cache/otelcol-$release-$digest"
binary="$out/otelcol-tracegrade"
if [ -x "$binary" ]; then
    echo "$binary"
    exit 0
fi

mkdir -p "$cache"
# ocb is released with core, at the same version as the components.
builder="$cache/ocb-v$release/builder"
if [ ! -x "$builder" ]; then
    GOBIN="$cache/ocb-v$release" go install "go.opentelemetry.io/collector/cmd/builder@v$release" >&2
fi

# Built in a scratch folder and moved into place, so an interrupted build leaves no binary behind.
work="$(mktemp -d "$cache/build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
sed "s|^dist:|dist:\n  output_path: $work/dist|" "$manifest" > "$work/manifest.yaml"
"$builder" --config "$work/manifest.yaml" --ldflags="-s -w" >&2
mkdir -p "$out"
mv "$work/dist/otelcol-tracegrade" "$binary.tmp"
mv "$binary.tmp" "$binary"
echo "$binary"
