// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "WidgetBus",
    // Platforms are package-wide: the services need macOS 15 (Synchronization's Mutex), so
    // WidgetBusClient does too on the Mac; on iOS it needs 17.
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "intent-handler", targets: ["intent-handler"]),
        .executable(name: "timeline-service", targets: ["timeline-service"]),
        .executable(name: "snapshot-writer", targets: ["snapshot-writer"]),
        .executable(name: "sync-agent", targets: ["sync-agent"]),
        .executable(name: "metrics-ingest", targets: ["metrics-ingest"]),
        .executable(name: "push-gateway", targets: ["push-gateway"]),
        .executable(name: "app-gateway", targets: ["app-gateway"]),
        .executable(name: "widgetctl", targets: ["widgetctl"]),
        // The seven services and widgetctl in one binary, linked under each name: what the image ships.
        .executable(name: "widgetbus-multicall", targets: ["widgetbus-multicall"]),
        // The load generator and end-to-end benchmarks: built here, never shipped in the image.
        .executable(name: "widgetbus-loadtest", targets: ["widgetbus-loadtest"]),
        // The libraries the micro-benchmarks in Benchmarks/ measure (a package of its own).
        .library(name: "WidgetDomain", targets: ["WidgetDomain"]),
        .library(name: "WidgetBusProtocol", targets: ["WidgetBusProtocol"]),
        .library(name: "BusRuntime", targets: ["BusRuntime"]),
        .library(name: "WidgetBusClient", targets: ["WidgetBusClient"]),
    ],
    traits: [
        .trait(
            name: "OTLP",
            description: "Export spans to an OpenTelemetry collector over OTLP/HTTP (swift-otel); off by default, as it adds minutes to every build"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.9.0"..<"6.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        // Only the fake APNs server uses these directly (async-http-client brings them anyway).
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // app-gateway's event streams are written from the pipeline, in the HTTP parts
        // Hummingbird's codecs speak (NIOHTTPTypes).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.0"),
        // WidgetBusClient: the generated client's runtime and URLSession transport (and, in the
        // tests only, the AsyncHTTPClient transport, which streams event bodies on Linux).
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        // Test-only: the contract test reads docs/openapi.yaml.
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
    ],
    targets: [
        // libzmq from Debian's libzmq3-dev, found through pkg-config.
        .systemLibrary(
            name: "CZeroMQ",
            path: "Shared/CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        // The file-system calls Swift's Glibc module leaves out (syncfs, renameat2, leases).
        .target(name: "CFileSystem", path: "Shared/CFileSystem"),
        // The memory call Swift's Glibc module leaves out (malloc_trim).
        .target(name: "CMemory", path: "Shared/CMemory"),
        // The one thin Swift wrapper over libzmq.
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"], path: "Shared/ZeroMQ"),
        // Pure widget rules and timeline builders: no I/O, injected clock and randomness.
        .target(name: "WidgetDomain", path: "Shared/WidgetDomain"),
        // Envelope, message catalog, topics, error codes, endpoints, the snapshot file's format and path:
        // shared by every executable.
        .target(
            name: "WidgetBusProtocol",
            dependencies: ["WidgetDomain", .product(name: "W3CTraceContext", package: "swift-w3c-trace-context")],
            path: "Shared/WidgetBusProtocol"),
        // What a service needs beside the bus, with no widget knowledge: settings from the
        // environment, logging, clocks and schedules, a dedicated thread, a cache, giving freed
        // memory back.
        .target(
            name: "ServiceSupport",
            dependencies: [
                "WidgetBusProtocol", "CMemory", "CommandLineText",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            path: "Shared/ServiceSupport"
        ),
        // Every metric declared once, spans on messages, trace ids in log lines.
        .target(
            name: "Observability",
            dependencies: [
                "WidgetBusProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ],
            path: "Shared/Observability"
        ),
        // The services' durable state: SQLite stores (GRDB) with their WAL checkpoints, and atomic
        // file writes.
        .target(
            name: "Storage",
            dependencies: [
                "Observability", "ServiceSupport", "CFileSystem",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Shared/Storage"
        ),
        // PostgreSQL connection settings from a URL, and a connection for a thread that may wait:
        // sync-agent's target and intent-handler's state store.
        .target(
            name: "PostgresStorage",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/PostgresStorage"
        ),
        // The bus runtime, with no widget knowledge: the `Bus` and its sockets on one thread,
        // pacing, publishers, Clone-pattern replicas, request clients, CURVE security, the bus's
        // own metrics.
        .target(
            name: "BusRuntime",
            dependencies: [
                "ZeroMQ", "WidgetBusProtocol", "ServiceSupport", "Observability",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ],
            path: "Shared/BusRuntime"
        ),
        // How the command-line tools write: lines, errors, table columns.
        .target(name: "CommandLineText", path: "Shared/CommandLineText"),
        // What the services that derive from widget state keep of it: copies of intent-handler's
        // states and metrics-ingest's aggregates (Clone-pattern replicas on the bus runtime), and
        // the widgets built from them.
        .target(
            name: "ReplicatedWidgets",
            dependencies: [
                "BusRuntime", "Observability", "WidgetBusProtocol", "WidgetDomain",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Shared/ReplicatedWidgets"
        ),
        // How a service process runs: its services, and the metrics it reports over HTTP
        // (swift-metrics exported by swift-prometheus, served with NIOHTTP1).
        .target(
            name: "ServiceRuntime",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Observability", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLP"])),
            ],
            path: "Shared/ServiceRuntime"
        ),
        // Each service: its logic, wiring and command line as a library (tested in-process), and
        // an executable of one line that runs the command.
        .target(
            name: "IntentHandling",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Storage", "PostgresStorage", "Observability", "ServiceRuntime", "WidgetBusProtocol",
                "WidgetDomain",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Services/intent-handler/IntentHandling"
        ),
        .executableTarget(name: "intent-handler", dependencies: ["IntentHandling", .product(name: "ArgumentParser", package: "swift-argument-parser")], path: "Services/intent-handler/Main"),
        .target(
            name: "Timelines",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Observability", "ReplicatedWidgets", "ServiceRuntime", "WidgetBusProtocol", "WidgetDomain",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Services/timeline-service/Timelines"
        ),
        .executableTarget(name: "timeline-service", dependencies: ["Timelines", .product(name: "ArgumentParser", package: "swift-argument-parser")], path: "Services/timeline-service/Main"),
        .target(
            name: "Snapshots",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Storage", "Observability", "ServiceRuntime", "WidgetBusProtocol", "WidgetDomain", "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Services/snapshot-writer/Snapshots"
        ),
        .executableTarget(name: "snapshot-writer", dependencies: ["Snapshots", .product(name: "ArgumentParser", package: "swift-argument-parser")], path: "Services/snapshot-writer/Main"),
        .target(
            name: "SyncAgent",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Storage", "PostgresStorage", "Observability", "ServiceRuntime", "WidgetBusProtocol", "WidgetDomain",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Services/sync-agent/SyncAgent"
        ),
        .executableTarget(name: "sync-agent", dependencies: ["SyncAgent", .product(name: "ArgumentParser", package: "swift-argument-parser")], path: "Services/sync-agent/Main"),
        .target(
            name: "MetricsIngest",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Storage", "Observability", "ReplicatedWidgets", "ServiceRuntime", "WidgetBusProtocol", "WidgetDomain",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ],
            path: "Services/metrics-ingest/MetricsIngest"
        ),
        .executableTarget(name: "metrics-ingest", dependencies: ["MetricsIngest", .product(name: "ArgumentParser", package: "swift-argument-parser")], path: "Services/metrics-ingest/Main"),
        // push-gateway: which device to wake with a WidgetKit push, and when (pure, on an injected
        // date), and APNs (async-http-client's HTTP/2; swift-crypto for the ES256 provider token
        // and the digests of what a timeline shows).
        .target(
            name: "PushGateway",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Storage", "Observability", "ServiceRuntime", "WidgetBusProtocol", "WidgetDomain",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Services/push-gateway/PushGateway"
        ),
        .executableTarget(name: "push-gateway", dependencies: ["PushGateway", .product(name: "ArgumentParser", package: "swift-argument-parser")], path: "Services/push-gateway/Main"),
        // app-gateway's identity model: which bearer tokens prove a user, and the bus user id a
        // proven (issuer, subject) maps to. Pure, on an injected date; jwt-kit reads the keys and
        // checks the signatures, swift-crypto hashes long subjects.
        .target(
            name: "AppGatewayIdentity",
            dependencies: [
                "WidgetBusProtocol",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Services/app-gateway/Identity"
        ),
        // app-gateway: the phone's door. An HTTPS API (Hummingbird 2, HTTP/2 and HTTP/1.1 over
        // TLS) that proves who the caller is (AppGatewayIdentity) and speaks to the bus for them.
        .target(
            name: "AppGateway",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Observability", "AppGatewayIdentity",
                "ServiceRuntime", "WidgetBusProtocol", "WidgetDomain", "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Services/app-gateway/Gateway"
        ),
        .executableTarget(name: "app-gateway", dependencies: ["AppGateway", .product(name: "ArgumentParser", package: "swift-argument-parser")], path: "Services/app-gateway/Main"),
        .target(
            name: "WidgetctlCommands",
            dependencies: [
                "ServiceSupport", "BusRuntime", "CommandLineText", "WidgetBusProtocol",
                "WidgetDomain", "ZeroMQ", "AppGatewayIdentity", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ],
            path: "Services/widgetctl/Commands"
        ),
        .executableTarget(name: "widgetctl", dependencies: ["WidgetctlCommands", .product(name: "ArgumentParser", package: "swift-argument-parser")], path: "Services/widgetctl/Main"),
        .executableTarget(
            name: "widgetbus-multicall",
            dependencies: [
                "IntentHandling", "Timelines", "Snapshots", "SyncAgent",
                "MetricsIngest", "PushGateway", "AppGateway", "WidgetctlCommands",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Services/widgetbus-multicall"
        ),
        // A stand-in for APNs (HTTP/2 over TLS, with a certificate it makes): push-gateway's tests
        // and benchmark send to it. Never linked into a service.
        .target(
            name: "FakeAPNs",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"), .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tools/FakeAPNs"),
        // Load generator and end-to-end benchmarks of running services (not a service, not shipped).
        .executableTarget(
            name: "widgetbus-loadtest",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Storage", "CommandLineText", "FakeAPNs", "WidgetBusProtocol", "WidgetDomain", "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tools/widgetbus-loadtest"
        ),
        .testTarget(name: "ZeroMQTests", dependencies: ["CZeroMQ", "ZeroMQ"]),
        .testTarget(name: "WidgetDomainTests", dependencies: ["WidgetDomain"]),
        .testTarget(
            name: "WidgetBusProtocolTests",
            dependencies: ["WidgetDomain", "WidgetBusProtocol", .product(name: "W3CTraceContext", package: "swift-w3c-trace-context")]),
        // What several test targets share (a clock set by hand); never linked into a product.
        .target(
            name: "WidgetBusTestSupport",
            dependencies: [
                "ServiceSupport", "BusRuntime", "ZeroMQ", .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ],
            path: "Tests/Support"),
        .testTarget(name: "ServiceSupportTests", dependencies: ["ServiceSupport", "WidgetBusProtocol"]),
        .testTarget(name: "ObservabilityUnitTests", dependencies: ["Observability"]),
        .testTarget(
            name: "StorageTests",
            dependencies: ["ServiceSupport", "Storage", .product(name: "GRDB", package: "GRDB.swift")]),
        // The bus runtime and the replicas built on it, each on real sockets in one process.
        // Tests/BusTestSupport (no target of its own) is linked into both folders.
        .testTarget(
            name: "BusRuntimeTests",
            dependencies: [
                "ServiceSupport", "BusRuntime", "ZeroMQ", "WidgetBusProtocol", "WidgetDomain", "WidgetBusTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "ReplicatedWidgetsTests",
            dependencies: [
                "ServiceSupport", "BusRuntime", "ReplicatedWidgets", "ZeroMQ", "WidgetBusProtocol", "WidgetDomain", "WidgetBusTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Each service's logic in-process: no process, no port.
        .testTarget(
            name: "IntentHandlingTests",
            dependencies: [
                "ServiceSupport", "BusRuntime", "IntentHandling", "WidgetBusProtocol", "WidgetDomain", "WidgetBusTestSupport", "ZeroMQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]),
        .testTarget(
            name: "SnapshotsTests",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Snapshots",
                "WidgetBusProtocol", "WidgetDomain", "WidgetBusTestSupport", "ZeroMQ",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "TimelinesTests",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Timelines",
                "WidgetBusProtocol", "WidgetDomain", "WidgetBusTestSupport", "ZeroMQ",
                .product(name: "Logging", package: "swift-log"), .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ]),
        .testTarget(
            name: "SyncAgentUnitTests",
            dependencies: [
                "ServiceSupport", "BusRuntime", "SyncAgent", "IntentHandling", "PostgresStorage", "WidgetBusProtocol", "WidgetDomain",
                .product(name: "Logging", package: "swift-log"), .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "PushGatewayTests",
            dependencies: [
                "BusRuntime", "PushGateway", "WidgetBusProtocol", "WidgetDomain", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "AppGatewayIdentityTests",
            dependencies: [
                "AppGatewayIdentity", "WidgetBusProtocol", .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
            ]),
        // What an app and its widget extension use to talk to app-gateway: Foundation and the
        // OpenAPI runtime only (no ZeroMQ, no NIO), so it builds for iOS. Generated/ is made from
        // docs/openapi.yaml by scripts/generate-client.sh.
        .target(
            name: "WidgetBusClient",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            path: "Clients/WidgetBusClient",
            exclude: ["openapi-generator-config.yaml"]),
        .testTarget(
            name: "WidgetBusClientUnitTests",
            dependencies: ["WidgetBusClient", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")]),
        // app-gateway in-process: its HTTP layer's pure parts and its contract with docs/openapi.yaml.
        .testTarget(
            name: "AppGatewayTests",
            dependencies: [
                "BusRuntime", "AppGateway", "AppGatewayIdentity", "WidgetBusProtocol", "WidgetDomain",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(
            name: "MetricsIngestUnitTests",
            dependencies: [
                "MetricsIngest", "WidgetBusProtocol", "WidgetDomain", "WidgetBusTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Start the real executables as processes on free loopback ports and speak ZeroMQ to them.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "ServiceSupport", "BusRuntime", "Storage", "Observability", "ZeroMQ",
                "CZeroMQ", "WidgetBusProtocol", "WidgetDomain", "FakeAPNs", "AppGatewayIdentity",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                "WidgetBusClient",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every Swift target must import each module whose members it uses, not rely on another file's
// import (`MemberImportVisibility`); scripts/check-imports.py checks that Package.swift declares
// each module a target imports.
for target in package.targets where target.type != .system && target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
