// swift-tools-version: 6.0
// Only here so scripts/generate-proto.sh can build the protoc plugins at the versions Spotter uses.
// CI never builds this package.
import PackageDescription

let package = Package(
    name: "protoc-plugins",
    dependencies: [
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", exact: "2.4.1"),
    ]
)
