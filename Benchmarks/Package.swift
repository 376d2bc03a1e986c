// swift-tools-version:6.1
import PackageDescription

// The micro-benchmarks of WidgetBus's hot paths, a package of their own so that the service
// build never compiles package-benchmark. Run them with scripts/bench.sh (docs/BENCHMARKS.md).
let package = Package(
    name: "WidgetBusBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The project itself, by path; `name:` lets the targets below say `package: "WidgetBus"`
        // whatever the checkout's folder is called.
        .package(name: "WidgetBus", path: ".."),
        // The malloc counts come from the interposer the MallocInterposer trait links in. Only
        // that trait: the default ones add a Swift runtime interposer (ARC counts, unused here)
        // from a package this project's machines do not carry.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "WidgetBusBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "WidgetDomain", package: "WidgetBus"),
                .product(name: "WidgetBusProtocol", package: "WidgetBus"),
                .product(name: "BusRuntime", package: "WidgetBus"),
            ],
            path: "Benchmarks/WidgetBusBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
