#!/usr/bin/env bash
# Regenerates Sources/SpotterProto from proto/ with protoc and the Swift plugins, and checks that
# the Python interop stubs can be generated from the same files. Run it after editing a .proto file
# and commit the result; CI never runs it (the plugins take minutes to build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if ! command -v protoc >/dev/null; then
    apt-get update -qq && apt-get install -y -qq protobuf-compiler
fi

plugins="$root/scripts/protoc-plugins"
scratch="$root/.build-protoc"
swift build -c release --package-path "$plugins" --scratch-path "$scratch" \
    --product protoc-gen-swift
swift build -c release --package-path "$plugins" --scratch-path "$scratch" \
    --product protoc-gen-grpc-swift-2
bin=$(swift build -c release --package-path "$plugins" --scratch-path "$scratch" --show-bin-path)

out="$root/Sources/SpotterProto"
find "$out" -name '*.swift' -delete
protos=$(cd proto && find . -name '*.proto' | sed 's|^\./||' | sort)
(
    cd proto
    protoc \
        --plugin=protoc-gen-swift="$bin/protoc-gen-swift" \
        --plugin=protoc-gen-grpc-swift="$bin/protoc-gen-grpc-swift-2" \
        --swift_out="$out" --swift_opt=Visibility=Public,FileNaming=PathToUnderscores \
        --grpc-swift_out="$out" --grpc-swift_opt=Visibility=Public,FileNaming=PathToUnderscores \
        $protos
)
echo "generated $(find "$out" -name '*.swift' | wc -l) files in Sources/SpotterProto"
