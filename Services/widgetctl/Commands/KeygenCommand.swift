import ArgumentParser
import BusRuntime
import CommandLineText
import Foundation
import ZeroMQ

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write a new CURVE key pair: NAME.key (public, to share) and NAME.key_secret (mode 0600).",
        discussion: """
            The files are certificates in the format of pyzmq's zmq.auth, so pyzmq reads them and its \
            zmq.auth.create_certificates makes files WidgetBus reads. Existing files are never replaced. \
            Prints {"name", "publicKey", "publicFile", "secretFile"} as JSON; the secret key is never printed.
            """
    )

    @Option(help: "The directory to write into (created if missing).")
    var out: String

    @Option(help: "The files' name: NAME.key and NAME.key_secret.")
    var name = "widgetbus"

    func run() throws {
        let keys = try CurveKeyPair.generate()
        do {
            let files = try CurveCertificate.write(keys, name: name, in: URL(fileURLWithPath: out))
            let summary: [String: String] = [
                "name": name, "publicKey": keys.publicKey, "publicFile": files.public.path, "secretFile": files.secret.path,
            ]
            let json = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys, .withoutEscapingSlashes])
            Console.line(String(decoding: json, as: UTF8.self))
        } catch let failure as CurveCertificate.Failure {
            Console.error(failure.description)
            throw ExitCode(1)
        }
    }
}
