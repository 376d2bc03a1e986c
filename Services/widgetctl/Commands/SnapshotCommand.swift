import ArgumentParser
import CommandLineText
import Foundation
import ServiceSupport
import WidgetBusProtocol
import WidgetDomain

struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Print the snapshot file snapshot-writer keeps for a user's widget kind.",
        discussion: "Widget kinds: " + WidgetKind.allCases.map(\.rawValue).joined(separator: ", ") + "\n\n"
            + EnvironmentSetting.helpText([.snapshotDirectory])
    )

    @Argument(help: "The widget kind, e.g. TensionCheckWidget.")
    var kind: String

    @Option(help: "The user whose snapshot to print.")
    var user: String

    func run() throws {
        guard let widgetKind = WidgetKind(rawValue: kind) else {
            throw ValidationError("unknown widget kind \(kind)")
        }
        let path: SnapshotPath
        do {
            path = try SnapshotPath(root: EnvironmentSetting.snapshotDirectory.resolve(), user: user, kind: widgetKind)
        } catch {
            Console.error(error.description)
            throw ExitCode(1)
        }
        guard let content = FileManager.default.contents(atPath: path.file) else {
            Console.error("no snapshot at \(path.file): the user has no \(kind) state, or snapshot-writer is not running")
            throw ExitCode(1)
        }
        Console.line(String(decoding: content, as: UTF8.self))
    }
}
