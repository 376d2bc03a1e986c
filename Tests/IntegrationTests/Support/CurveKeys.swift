import BusRuntime
import Foundation
import ServiceSupport
import ZeroMQ

/// A topology's CURVE keys as `scripts/curve-keys.sh` lays them out: `public/` is the keys
/// directory every executable reads (`services/<service>.key` and one folder per client role),
/// `secret/<name>.key_secret` each executable's own secret.
struct CurveKeys {
    let root: URL
    var publicDirectory: URL { root.appendingPathComponent("public") }

    /// Keys for every service, and one client key per role (`app` a publisher, `gateway`,
    /// `operator`), made by `scripts/curve-keys.sh` with the built widgetctl.
    init(under root: URL) throws {
        self.root = root
        let script = DeploymentConfigurationTests.repository.appendingPathComponent("scripts/curve-keys.sh")
        let made = try runCommand(
            URL(fileURLWithPath: "/bin/bash"), [script.path, root.path],
            environment: ["PATH": "/usr/bin:/bin", "WIDGETCTL": BusFixture.productsDirectory.appendingPathComponent("widgetctl").path])
        guard made.status == 0 else { throw FixtureError.commandFailed(made) }
    }

    /// Makes a key pair `name` whose public key is in `role`'s folder (nil: in none).
    @discardableResult
    func add(_ name: String, role: String?) throws -> CurveKeyPair {
        let keys = try CurveKeyPair.generate()
        let staging = root.appendingPathComponent("staging-\(UUID().uuidString)")
        let files = try CurveCertificate.write(keys, name: name, in: staging)
        let secret = root.appendingPathComponent("secret")
        try FileManager.default.createDirectory(at: secret, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: files.secret, to: secret.appendingPathComponent(files.secret.lastPathComponent))
        if let role {
            let folder = publicDirectory.appendingPathComponent(role)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: files.public, to: folder.appendingPathComponent(files.public.lastPathComponent))
        }
        try FileManager.default.removeItem(at: staging)
        return keys
    }

    /// The environment that makes an executable use `name`'s key pair.
    func environment(as name: String) -> [String: String] {
        [
            BusSecurity.secretKeyFile.variable: root.appendingPathComponent("secret/\(name).key_secret").path,
            BusSecurity.keysDirectory.variable: publicDirectory.path,
        ]
    }
}
