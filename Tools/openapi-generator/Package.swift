// swift-tools-version:6.1
// Builds swift-openapi-generator on its own, so that the client's generated sources can be made
// again from docs/openapi.yaml (scripts/generate-client.sh) without the main package, or CI's
// every build, depending on the generator.
import PackageDescription

let package = Package(
    name: "openapi-generator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")
    ]
)
