import Foundation
import Synchronization
import Testing
import WidgetBusProtocol

/// `deploy/docker-compose.yml` and `deploy/topology.env` checked against the services' own
/// configuration, so that the deployment cannot drift from the code:
///
/// - the services are the executable products of Package.swift (all but the tools: widgetctl,
///   widgetbus-loadtest and the multi-call binary), in compose and in the local runner alike; the
///   image ships the services and widgetctl, as links to the multi-call binary, never the load
///   generator;
/// - what each service reads is what its `--help` lists (generated from the `EnvironmentSetting`
///   lists its command declares), and compose defines every one of those for it;
/// - every endpoint of `BusEndpoint.all` is in topology.env, at its default port, hosted by the
///   service that binds it; published ports are those endpoints, at their own port, and
///   app-gateway's HTTPS port, the one meant for phones;
/// - every container runs with CURVE: its own secret key as a compose secret (one that
///   scripts/curve-keys.sh makes), the public keys mounted read-only, and never
///   `WIDGETBUS_INSECURE=1`;
/// - app-gateway serves TLS with the certificate and issuers of deploy/gateway/, read-only, which
///   scripts/gateway-dev-keys.sh makes for development and never overwrites;
/// - volumes back every data and snapshot directory, every service has a real health check, a
///   restart policy and waits for the health of what it connects to.
///
/// The YAML is read by PyYAML (`python3 -c 'import yaml, json …'`, installed by scripts/test.sh)
/// and decoded from JSON here: no hand-written YAML subset.
@Suite("Deployment configuration", .blockingThreads)
struct DeploymentConfigurationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let deploy = repository.appendingPathComponent("deploy")
    /// Compose services that are not WidgetBus executables run as daemons.
    static let auxiliaryServices: Set<String> = ["postgres", "widgetctl", "prometheus"]
    /// Services that connect to a follower of theirs without needing it: intent-handler follows
    /// timeline-service's heartbeats only to hold intents back while it is behind, serves
    /// without it, and is what timeline-service waits for — waiting back would be a cycle.
    static let followedBack: [String: String] = ["intent-handler": "timeline-service"]
    /// Executable products that are tools, not services, and the binary the image runs them from.
    static let tools: Set<String> = ["widgetctl", "widgetbus-loadtest", "widgetbus-multicall"]

    // MARK: - Tests

    @Test("every service executable is a compose service and a local-runner service, and nothing else is")
    func servicesMatchTheExecutables() throws {
        let compose = try Self.compose()
        let services = try Self.serviceExecutables()
        #expect(!services.isEmpty)
        let composeServices = Set(compose.services.keys)
        for service in services {
            #expect(composeServices.contains(service), "\(service) is an executable product but not a compose service")
        }
        for service in composeServices.subtracting(Self.auxiliaryServices) {
            #expect(services.contains(service), "compose service \(service) is not an executable product of Package.swift")
        }
        #expect(composeServices.contains("postgres"), "the sync target")
        #expect(composeServices.contains("widgetctl"), "widgetctl for `docker compose run --rm widgetctl …`")

        let runner = try Self.run(Self.deploy.appendingPathComponent("local/widgetbus"), ["services"])
        #expect(runner.status == 0, "\(runner.stderr)")
        #expect(Set(runner.lines) == Set(services), "deploy/local/widgetbus runs \(runner.lines), the executables are \(services.sorted())")
        #expect(runner.lines.first == "intent-handler", "the single writer starts first")
    }

    @Test("the image ships the services and widgetctl as links to one stripped static binary, and no load-test or benchmark binary")
    func imageShipsOnlyWhatProductionRuns() throws {
        let dockerfile = try String(contentsOf: Self.deploy.appendingPathComponent("Dockerfile"), encoding: .utf8)
        #expect(dockerfile.contains("RUN --mount=type=cache,target=/src/.build deploy/stage-binaries.sh /staging/bin"))
        let stage = try String(contentsOf: Self.deploy.appendingPathComponent("stage-binaries.sh"), encoding: .utf8)
        #expect(stage.contains("--static-swift-stdlib") && stage.contains("-Xlinker --strip-all"), "static and stripped")
        #expect(stage.contains("--product widgetbus-multicall") && stage.contains("widgetbus-multicall\" --list"))
        // The names the multi-call binary answers to are the ones it is linked under.
        let list = try Self.run(BusFixture.productsDirectory.appendingPathComponent("widgetbus-multicall"), ["--list"])
        #expect(list.status == 0)
        #expect(Set(list.lines) == Set(try Self.serviceExecutables() + ["widgetctl"]) && list.lines.count == Set(list.lines).count)

        let runtime = try #require(dockerfile.range(of: "# --- run"), "the runtime stage is marked")
        let runtimeStage = dockerfile[runtime.lowerBound...]
        #expect(!runtimeStage.contains("loadtest") && !runtimeStage.contains("Benchmarks"), "no load generator or benchmark in the image")
        #expect(runtimeStage.contains("COPY --from=build /staging/bin/ /usr/local/bin/"), "the image takes only what the build staged")
        let install = try #require(runtimeStage.firstMatch(of: /apt-get install[^\n]*/)).0
        #expect(!install.contains("tzdata"), "zones come from ICU's data in the binary, not the system's tz database")
    }

    @Test("compose defines every variable each service reads, from topology.env or its environment")
    func everyVariableIsDefined() throws {
        let compose = try Self.compose()
        let topology = try Self.topology()
        for service in try Self.serviceExecutables().sorted() + ["widgetctl"] {
            let definition = try #require(compose.services[service], "\(service) missing")
            #expect(definition.envFile == ["topology.env"], "\(service) must take the topology from topology.env (env_file)")
            let defined = topology.merging(definition.environmentStrings) { $1 }
            for setting in try Self.settings(of: service) {
                let value = defined[setting.variable]
                #expect(value != nil, "\(service) reads \(setting.variable) (\(setting.purpose)) but compose does not define it")
                #expect(value?.isEmpty == false, "\(service): \(setting.variable) is empty")
            }
            for (variable, value) in definition.environmentStrings where topology[variable] != nil {
                Issue.record("\(service) overrides \(variable)=\(value) from topology.env: the topology has one source")
            }
        }
    }

    @Test("the compose file is valid against the Compose Specification kept in the repository, whose check refuses a broken file")
    func composeFileMatchesTheSpecification() throws {
        let check = Self.repository.appendingPathComponent("scripts/check-compose.sh")
        let valid = try Self.run(URL(fileURLWithPath: "/bin/bash"), [check.path, Self.deploy.appendingPathComponent("docker-compose.yml").path])
        #expect(valid.status == 0, "\(valid.stdout)\(valid.stderr)")

        // The same check must be able to fail: an unknown service key and a number as an image.
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("compose-\(UUID().uuidString).yml")
        try "services:\n  intent-handler:\n    image: 3\n    not_a_compose_key: true\n".write(to: broken, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: broken) }
        let invalid = try Self.run(URL(fileURLWithPath: "/bin/bash"), [check.path, broken.path])
        #expect(invalid.status == 1)
        #expect(invalid.stdout.contains("not_a_compose_key") && invalid.stdout.contains("image"), "\(invalid.stdout)")
    }

    @Test("nothing the project runs or builds names a folder beside the repository: a user's clone has none")
    func nothingReachesOutsideTheRepository() throws {
        // Docs may mention the team's tools; scripts, sources, tests and deployment files may not.
        let outside = /\.\.\/shared/
        var offenders: [String] = []
        let files = try #require(FileManager.default.enumerator(at: Self.repository, includingPropertiesForKeys: [.isRegularFileKey]))
        for case let file as URL in files {
            let relative = String(file.path.dropFirst(Self.repository.path.count + 1))
            if file.lastPathComponent.hasPrefix(".") && file.lastPathComponent != ".ci" || file.lastPathComponent.hasPrefix(".build") {
                files.skipDescendants()
                continue
            }
            guard relative.hasPrefix("docs/") == false, file.pathExtension != "md",
                try file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true,
                let text = try? String(contentsOf: file, encoding: .utf8)
            else { continue }
            if text.contains(outside) { offenders.append(relative) }
        }
        #expect(offenders.isEmpty, "these files name a folder outside the repository: \(offenders.sorted())")
    }

    @Test("topology.env has every endpoint at its default port, hosted by the service that binds it")
    func endpointsAreConsistent() throws {
        let compose = try Self.compose()
        let topology = try Self.topology()
        var bound: [String: [Int]] = [:]  // service → ports of the endpoints it binds
        for endpoint in BusEndpoint.all {
            let value = try #require(topology[endpoint.variable], "topology.env lacks \(endpoint.variable) (\(endpoint.purpose))")
            let (host, port) = try #require(Self.hostAndPort(value), "\(endpoint.variable)=\(value) is not tcp://host:port")
            #expect(port == Self.hostAndPort(endpoint.defaultValue)?.port, "\(endpoint.variable) port differs from the default \(endpoint.defaultValue)")
            #expect(compose.services[host] != nil, "\(endpoint.variable) names host \(host), which is not a compose service")
            #expect(!Self.auxiliaryServices.contains(host))
            if compose.services[host] != nil {
                let reads = try Self.settings(of: host).map(\.variable)
                #expect(reads.contains(endpoint.variable), "\(host) hosts \(endpoint.variable) but does not read it")
            }
            bound[host, default: []].append(port)
        }
        let known = Set(BusEndpoint.all.map(\.variable))
        for (variable, value) in topology where value.hasPrefix("tcp://") {
            #expect(known.contains(variable), "topology.env has \(variable), which is not in BusEndpoint.all")
        }
        // Nothing in topology.env that no service reads (a stale or misspelt name).
        var readByAny: Set<String> = []
        for service in try Self.serviceExecutables() + ["widgetctl"] {
            readByAny.formUnion(try Self.settings(of: service).map(\.variable))
        }
        for variable in topology.keys {
            #expect(readByAny.contains(variable), "topology.env sets \(variable), which no service reads")
        }
        // Published ports: only the service's own endpoints, same port inside and out (CURVE guards
        // them, so every interface of the host), and app-gateway's API (TLS and tokens guard it).
        for (name, service) in compose.services where name != "prometheus" {
            var served = bound[name, default: []]
            if let listen = service.environmentStrings[Self.gatewayListen], let port = listen.split(separator: ":").last.flatMap({ Int($0) }) {
                served.append(port)
            }
            for mapping in service.ports ?? [] {
                let parts = mapping.split(separator: ":").map(String.init)
                #expect(parts.count == 2, "\(name) publishes \(mapping): OUTSIDE:INSIDE")
                guard parts.count == 2, let outside = Int(parts[0]), let inside = Int(parts[1]) else { continue }
                #expect(outside == inside, "\(name) publishes \(mapping): keep the port so host-side widgetctl defaults work")
                #expect(served.contains(inside), "\(name) publishes \(inside), which is not one of its endpoints")
            }
        }
    }

    @Test("every container runs with CURVE: its own secret, the public keys, never insecure")
    func everyContainerRunsWithCurve() throws {
        let compose = try Self.compose()
        let declared = try Self.composeSecrets()
        // scripts/curve-keys.sh makes a key pair for every service: the secret compose hands it,
        // and the public key its clients expect and its allow-lists name.
        let script = try String(contentsOf: Self.repository.appendingPathComponent("scripts/curve-keys.sh"), encoding: .utf8)
        let loop = try #require(script.firstMatch(of: /\nfor service in ([a-z -]+); do\n/), "curve-keys.sh's loop over the services")
        #expect(Set(loop.1.split(separator: " ").map(String.init)) == Set(try Self.serviceExecutables()), "curve-keys.sh makes keys for \(loop.1)")
        for name in try Self.serviceExecutables() + ["widgetctl"] {
            let service = try #require(compose.services[name])
            let environment = service.environmentStrings
            let secretName = name == "widgetctl" ? "operator-key" : "\(name)-key"
            #expect(service.secrets == [secretName], "\(name) gets its own secret key: \(service.secrets ?? [])")
            #expect(environment["WIDGETBUS_CURVE_SECRET_KEY_FILE"] == "/run/secrets/\(secretName)")
            let keyFile = name == "widgetctl" ? "operator" : name
            #expect(declared[secretName] == "./keys/secret/\(keyFile).key_secret", "the secret scripts/curve-keys.sh writes for \(name)")
            let keysDirectory = try #require(environment["WIDGETBUS_CURVE_KEYS_DIR"], "\(name) has no public keys")
            #expect(service.volumes?.contains("./keys/public:\(keysDirectory):ro") == true, "\(name) mounts the public keys read-only")
            #expect(environment["WIDGETBUS_INSECURE"] ?? "0" == "0", "\(name) must not run insecure")
        }
    }

    @Test("the observability profile's Prometheus scrapes every service where it serves metrics, on no public port")
    func prometheusScrapesEveryService() throws {
        let compose = try Self.compose()
        let prometheus = try #require(compose.services["prometheus"])
        #expect(prometheus.profiles == ["observability"], "Prometheus runs only with --profile observability")
        #expect(prometheus.volumes?.contains("./prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro") == true)
        #expect(prometheus.ports?.allSatisfy { $0.hasPrefix("127.0.0.1:") } == true, "its UI on the host's loopback only")
        let scrapes = try Self.scrapeTargets()
        for service in try Self.serviceExecutables() {
            let definition = try #require(compose.services[service])
            let listen = try #require(definition.environmentStrings["WIDGETBUS_HTTP_LISTEN"], "\(service) serves no metrics")
            let port = try #require(listen.split(separator: ":").last.map(String.init))
            #expect(scrapes[service] == ["\(service):\(port)"], "the job \(service) scrapes \(scrapes[service] ?? [])")
            #expect(definition.ports?.contains { $0.hasSuffix(":\(port)") } != true, "\(service) publishes its metrics port")
        }
        #expect(Set(scrapes.keys) == Set(try Self.serviceExecutables()), "one job per service, no other")
        if let promtool = Self.promtool {
            let check = try Self.run(promtool, ["check", "config", Self.deploy.appendingPathComponent("prometheus/prometheus.yml").path])
            #expect(check.status == 0, "promtool check config: \(check.stdout) \(check.stderr)")
        }
    }

    @Test("app-gateway serves HTTPS at its default port on every interface of its container, published, with deploy/gateway/ read-only")
    func appGatewayServesTheAppsAPI() throws {
        let compose = try Self.compose()
        let gateway = try #require(compose.services["app-gateway"])
        let environment = gateway.environmentStrings
        let listen = try #require(environment[Self.gatewayListen])
        let port = try #require(listen.split(separator: ":").last.map(String.init))
        let defaultPort = try Self.run(BusFixture.productsDirectory.appendingPathComponent("app-gateway"), ["--help"])
            .stdout.replacingOccurrences(of: "\n", with: " ").firstMatch(of: /WIDGETBUS_GATEWAY_LISTEN .*?\(default:\s+[^)]*:(\d+)\)/)
        #expect(port == defaultPort.map { String($0.1) }, "\(listen): the port app-gateway listens on by default, as in the local runner")
        #expect(listen == "0.0.0.0:\(port)", "every interface of the container, so the published port reaches it")
        #expect(gateway.ports == ["\(port):\(port)"], "the API's port, and no other, published on every interface of the host")
        #expect(gateway.volumes?.contains("./gateway:/etc/widgetbus/gateway:ro") == true, "the certificate and issuers, read-only")
        for (variable, file) in [
            ("WIDGETBUS_GATEWAY_TLS_CERT", "tls.crt"), ("WIDGETBUS_GATEWAY_TLS_KEY", "tls.key"), ("WIDGETBUS_GATEWAY_ISSUERS", "issuers.json"),
        ] {
            #expect(environment[variable] == "/etc/widgetbus/gateway/\(file)", "\(variable): the file scripts/gateway-dev-keys.sh writes")
        }
        let snapshots = try #require(environment["WIDGETBUS_SNAPSHOT_DIR"])
        #expect(gateway.volumes?.contains("snapshots:\(snapshots):ro") == true, "snapshot-writer's files, which it only reads")
        // One service serves the API: another with the setting would publish a second door.
        for (name, service) in compose.services where name != "app-gateway" {
            #expect(service.environmentStrings[Self.gatewayListen] == nil, "\(name) sets \(Self.gatewayListen)")
        }
    }

    @Test("scripts/gateway-dev-keys.sh makes a certificate for localhost and an issuer, and never replaces a file")
    func gatewayDevelopmentKeys() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = try GatewayDevKeys.make(in: directory)
        func mode(_ name: String) throws -> Int {
            try #require(FileManager.default.attributesOfItem(atPath: keys.file(name).path)[.posixPermissions] as? Int)
        }
        #expect(try mode("tls.key") == 0o600 && mode("dev-issuer.private.pem") == 0o600, "private keys are their owner's alone")
        #expect(try mode("tls.crt") == 0o644 && mode("issuers.json") == 0o644 && mode("dev-issuer.jwks.json") == 0o644)

        let certificate = try runCommand(
            URL(fileURLWithPath: "/usr/bin/env"), ["openssl", "x509", "-in", keys.file("tls.crt").path, "-noout", "-text"],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(certificate.stdout.contains("DNS:localhost") && certificate.stdout.contains("IP Address:127.0.0.1"), "\(certificate.stdout)")
        #expect(certificate.stdout.contains("prime256v1") || certificate.stdout.contains("P-256"), "an EC P-256 key")

        let issuers = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: keys.file("issuers.json"))) as? [String: Any])
        let issuer = try #require((issuers["issuers"] as? [[String: Any]])?.first)
        #expect((issuers["issuers"] as? [Any])?.count == 1)
        #expect(issuer["issuer"] as? String == GatewayDevKeys.issuer && issuer["alias"] as? String == GatewayDevKeys.alias)
        #expect(issuer["audiences"] as? [String] == [GatewayDevKeys.audience] && issuer["algorithms"] as? [String] == ["ES256"])
        #expect(issuer["jwksFile"] as? String == "dev-issuer.jwks.json", "relative to the file, so the folder can be mounted anywhere")
        #expect(try keys.token("alice").split(separator: ".").count == 3, "widgetctl mints a token from the issuer's key")

        // A second run changes nothing: not the certificate, not the issuer's key.
        let before = try ["tls.crt", "tls.key", "dev-issuer.private.pem", "issuers.json"].map { try Data(contentsOf: keys.file($0)) }
        let again = try GatewayDevKeys.runScript(directory)
        #expect(again.status == 1 && again.stderr.contains("refusing to replace"), "\(again.stdout) \(again.stderr)")
        #expect(try ["tls.crt", "tls.key", "dev-issuer.private.pem", "issuers.json"].map { try Data(contentsOf: keys.file($0)) } == before)
        // One file left over is refused too: the set is made whole or not at all.
        let partial = directory.appendingPathComponent("partial")
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        try "{}".write(to: partial.appendingPathComponent("issuers.json"), atomically: true, encoding: .utf8)
        let refused = try GatewayDevKeys.runScript(partial)
        #expect(refused.status == 1 && refused.stderr.contains("issuers.json"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: partial.path) == ["issuers.json"], "nothing made beside it")
    }

    static let gatewayListen = "WIDGETBUS_GATEWAY_LISTEN"

    /// Debian's promtool, which scripts/test.sh installs with Prometheus; nil where it is missing.
    static var promtool: URL? {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") ? URL(fileURLWithPath: "/usr/bin/promtool") : nil
    }

    /// deploy/prometheus/prometheus.yml's targets, by job.
    static func scrapeTargets() throws -> [String: [String]] {
        let script = """
            import json, sys, yaml
            jobs = yaml.safe_load(open(sys.argv[1]))["scrape_configs"]
            json.dump({j["job_name"]: [t for c in j["static_configs"] for t in c["targets"]] for j in jobs}, sys.stdout)
            """
        let result = try run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, deploy.appendingPathComponent("prometheus/prometheus.yml").path])
        return try JSONDecoder().decode([String: [String]].self, from: result.stdoutData)
    }

    @Test("volumes, health checks, restart policies and start-up order by health")
    func volumesHealthChecksAndOrder() throws {
        let compose = try Self.compose()
        let topology = try Self.topology()
        let declaredVolumes = Set(compose.volumes?.keys.map { $0 } ?? [])
        let pingable = try Self.pingableServices()
        let owners: [String: String] = topology.compactMapValues { Self.hostAndPort($0)?.host }  // endpoint variable → host

        for service in try Self.serviceExecutables().sorted() {
            let definition = try #require(compose.services[service])
            let environment = topology.merging(definition.environmentStrings) { $1 }
            let reads = try Self.settings(of: service).map(\.variable)
            #expect(definition.command == [service], "\(service) must run its own executable")
            #expect(definition.image == compose.services["intent-handler"]?.image, "one image for every service")
            #expect(["unless-stopped", "always", "on-failure"].contains(definition.restart ?? ""), "\(service) has no restart policy")

            // Durable directories live on named volumes.
            for variable in ["WIDGETBUS_DATA_DIR", "WIDGETBUS_SNAPSHOT_DIR"] where reads.contains(variable) {
                let path = try #require(environment[variable], "\(service): \(variable) undefined")
                let mount = definition.volumes?.first { $0.split(separator: ":").dropFirst().first.map(String.init) == path }
                let volume = try #require(mount, "\(service) keeps \(variable)=\(path) on no volume").split(separator: ":")[0]
                #expect(declaredVolumes.contains(String(volume)), "\(service) mounts \(volume), which is not a named volume")
            }

            // A health check that asks the service itself.
            let check = try #require(definition.healthcheck?.test, "\(service) has no health check")
            if pingable.contains(service) {
                #expect(Array(check.prefix(4)) == ["CMD", "widgetctl", "ping", service], "\(service) answers ping: check with `widgetctl ping \(service)`, got \(check)")
            } else {
                #expect(check.joined(separator: " ").contains("widgetbus-connected"), "\(service) has no request socket: \(check) must ask the kernel about its connection")
            }
            #expect(definition.healthcheck?.interval != nil && definition.healthcheck?.retries != nil)

            // It waits for the health of every service it connects to, but for one that follows it back.
            var needs: Set<String> = []
            for variable in reads {
                if let owner = owners[variable], owner != service, Self.followedBack[service] != owner { needs.insert(owner) }
            }
            if let url = environment["WIDGETBUS_SYNC_DATABASE_URL"], reads.contains("WIDGETBUS_SYNC_DATABASE_URL"),
                let match = url.firstMatch(of: /@([A-Za-z0-9_.-]+)[:\/]/), compose.services[String(match.1)] != nil
            {
                needs.insert(String(match.1))
            }
            for dependency in needs {
                #expect(
                    definition.dependsOn?[dependency]?.condition == "service_healthy",
                    "\(service) connects to \(dependency) and must wait for it: depends_on \(dependency): condition: service_healthy")
            }
        }

        let postgres = try #require(compose.services["postgres"])
        #expect(postgres.healthcheck?.test.contains("pg_isready") == true)
        #expect(postgres.volumes?.contains { $0.hasSuffix(":/var/lib/postgresql/data") } == true, "PostgreSQL data on a named volume")
        #expect(postgres.volumes?.contains { $0.hasPrefix("./postgres:/docker-entrypoint-initdb.d") } == true, "the schema of deploy/postgres/")

        let widgetctl = try #require(compose.services["widgetctl"])
        #expect(widgetctl.profiles?.isEmpty == false, "widgetctl runs on demand only (a profile)")
        #expect(widgetctl.entrypoint == ["widgetctl"], "`docker compose run --rm widgetctl <command>`")
        #expect(widgetctl.restart == "no")
    }

    @Test("the Dockerfile builds in a Swift 6 bookworm image and runs as a non-root user on bookworm-slim")
    func dockerfile() throws {
        let text = try String(contentsOf: Self.deploy.appendingPathComponent("Dockerfile"), encoding: .utf8)
        #expect(text.firstMatch(of: /ARG SWIFT_IMAGE=swift:6\.\d+-bookworm/) != nil)
        #expect(text.contains("ARG RUNTIME_IMAGE=debian:bookworm-slim"))
        #expect(text.contains("libzmq3-dev") && text.contains("libzmq5") && text.contains("libsqlite3-0"))
        #expect(text.contains("USER widgetbus"))
        #expect(FileManager.default.isExecutableFile(atPath: Self.deploy.appendingPathComponent("bin/widgetbus-connected").path))
        // The paths the image declares are the ones compose mounts volumes on.
        let compose = try Self.compose()
        for (variable, service) in [("WIDGETBUS_DATA_DIR", "intent-handler"), ("WIDGETBUS_SNAPSHOT_DIR", "snapshot-writer")] {
            let path = try #require(compose.services[service]?.environmentStrings[variable])
            #expect(text.contains("\(variable)=\(path)"), "the image's \(variable) should be \(path)")
        }
    }

    // MARK: - Reading the deployment

    struct ComposeFile: Decodable {
        var services: [String: Service]
        var volumes: [String: JSONValue]?
    }

    struct Service: Decodable {
        struct Dependency: Decodable { var condition: String? }
        struct HealthCheck: Decodable {
            var test: [String]
            var interval: String?
            var retries: Int?
        }

        var image: String?
        var command: [String]?
        var entrypoint: [String]?
        var envFile: [String]?
        var environment: [String: JSONValue]?
        var volumes: [String]?
        var ports: [String]?
        var dependsOn: [String: Dependency]?
        var healthcheck: HealthCheck?
        var restart: String?
        var profiles: [String]?
        var secrets: [String]?

        enum CodingKeys: String, CodingKey {
            case image, command, entrypoint, environment, volumes, ports, healthcheck, restart, profiles, secrets
            case envFile = "env_file"
            case dependsOn = "depends_on"
        }

        var environmentStrings: [String: String] {
            (environment ?? [:]).compactMapValues { value in
                switch value {
                case .string(let text): text
                case .number(let number): number == number.rounded() ? String(Int(number)) : String(number)
                case .bool(let flag): String(flag)
                default: nil
                }
            }
        }
    }

    /// The compose file's top-level secrets: name → file.
    static func composeSecrets() throws -> [String: String] {
        let script = "import json, sys, yaml; json.dump({k: v.get('file') for k, v in (yaml.safe_load(open(sys.argv[1])).get('secrets') or {}).items()}, sys.stdout)"
        let result = try run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, deploy.appendingPathComponent("docker-compose.yml").path])
        return try JSONDecoder().decode([String: String].self, from: result.stdoutData)
    }

    /// deploy/docker-compose.yml through PyYAML, as JSON.
    static func compose() throws -> ComposeFile {
        let script = "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)"
        let result = try run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, deploy.appendingPathComponent("docker-compose.yml").path])
        guard result.status == 0 else {
            Issue.record("reading docker-compose.yml with PyYAML failed (scripts/test.sh installs PyYAML): \(result.stderr)")
            throw FixtureError.commandFailed(result)
        }
        return try JSONDecoder().decode(ComposeFile.self, from: result.stdoutData)
    }

    /// deploy/topology.env: VARIABLE=value lines.
    static func topology() throws -> [String: String] {
        let text = try String(contentsOf: deploy.appendingPathComponent("topology.env"), encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && line.contains("=") {
            let parts = line.split(separator: "=", maxSplits: 1)
            values[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return values
    }

    /// The executable products of Package.swift, the tools aside.
    static func serviceExecutables() throws -> [String] {
        let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        return manifest.matches(of: /\.executable\(\s*name:\s*"([^"]+)"/).map { String($0.1) }.filter { !tools.contains($0) }
    }

    struct Setting: Sendable {
        var variable: String
        var purpose: String
    }

    /// What an executable reads, from the "Environment:" section of its `--help` (generated from
    /// the `EnvironmentSetting` list its command declares); for widgetctl, the union over its
    /// subcommands.
    static func settings(of executable: String) throws -> [Setting] {
        if let cached = settingsCache.withLock({ $0[executable] }) { return cached }
        var helps = [try help(executable, [])]
        if executable == "widgetctl" {
            for subcommand in subcommands(in: helps[0]) { helps.append(try help(executable, [subcommand])) }
        }
        var settings: [String: Setting] = [:]
        for text in helps {
            guard let section = text.range(of: "Environment:") else { continue }
            for line in text[section.upperBound...].split(separator: "\n") {
                guard let match = line.firstMatch(of: /^\s+(WIDGETBUS_[A-Z0-9_]+)\s+(.*)$/) else { continue }
                settings[String(match.1)] = Setting(variable: String(match.1), purpose: String(match.2))
            }
        }
        let result = settings.values.sorted { $0.variable < $1.variable }
        #expect(!result.isEmpty, "\(executable) --help lists no Environment: section")
        settingsCache.withLock { $0[executable] = result }
        return result
    }

    /// Help texts are the same for every test of a run.
    private static let settingsCache = Mutex<[String: [Setting]]>([:])

    /// The services `widgetctl ping` knows: the values ArgumentParser lists for its argument.
    static func pingableServices() throws -> Set<String> {
        let text = try help("widgetctl", ["ping"])
        guard let match = text.firstMatch(of: /\(values: ([^)]+)\)/) else {
            Issue.record("cannot find the service list in `widgetctl ping --help`")
            return []
        }
        return Set(match.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    }

    private static func help(_ executable: String, _ arguments: [String]) throws -> String {
        let path = BusFixture.productsDirectory.appendingPathComponent(executable)
        let result = try run(path, arguments + ["--help"])
        guard result.status == 0 else {
            Issue.record("\(executable) \(arguments.joined(separator: " ")) --help failed: \(result.stderr)")
            throw FixtureError.commandFailed(result)
        }
        return result.stdout
    }

    /// Subcommand names from a help text's SUBCOMMANDS section.
    private static func subcommands(in help: String) -> [String] {
        guard let section = help.range(of: "SUBCOMMANDS:") else { return [] }
        return help[section.upperBound...].split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^  ([a-z][a-z0-9-]*)\b/).map { String($0.1) }
        }.filter { $0 != "help" }
    }

    static func hostAndPort(_ endpoint: String) -> (host: String, port: Int)? {
        guard let match = endpoint.wholeMatch(of: /tcp:\/\/([^:\/]+):(\d+)/), let port = Int(match.2) else { return nil }
        return (String(match.1), port)
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> CommandResult {
        var environment = ProcessInfo.processInfo.environment
        for variable in environment.keys where variable.hasPrefix("WIDGETBUS_") && variable != "WIDGETBUS_BIN_DIR" {
            environment.removeValue(forKey: variable)
        }
        return try runCommand(executable, arguments, environment: environment)
    }
}
