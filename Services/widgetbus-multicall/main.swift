import ArgumentParser
import Foundation
import AppGateway
import IntentHandling
import MetricsIngest
import PushGateway
import Snapshots
import SyncAgent
import Timelines
import WidgetctlCommands

// Every executable the production image ships, in one statically linked binary: the image
// holds this file once and a link to it under each name, so the Swift runtime, Foundation and
// ICU's data (most of a static binary's size) are in it once instead of six times
// (deploy/README.md, "Image size"). Called through a link named `intent-handler` it is
// intent-handler; `widgetbus-multicall intent-handler ARGS…` is the same, and
// `widgetbus-multicall --list` prints the names to link it under.

/// The executables, by the name each is called by.
enum Executable: String, CaseIterable {
    case intentHandler = "intent-handler"
    case timelineService = "timeline-service"
    case snapshotWriter = "snapshot-writer"
    case syncAgent = "sync-agent"
    case metricsIngest = "metrics-ingest"
    case pushGateway = "push-gateway"
    case appGateway = "app-gateway"
    case widgetctl

    func main(_ arguments: [String]) async {
        switch self {
        case .intentHandler: await IntentHandlerCommand.main(arguments)
        case .timelineService: await TimelineServiceCommand.main(arguments)
        case .snapshotWriter: await SnapshotWriterCommand.main(arguments)
        case .syncAgent: await SyncAgentCommand.main(arguments)
        case .metricsIngest: await MetricsIngestCommand.main(arguments)
        case .pushGateway: await PushGatewayCommand.main(arguments)
        case .appGateway: await AppGatewayCommand.main(arguments)
        case .widgetctl: WidgetCtl.main(arguments)
        }
    }
}

var arguments = CommandLine.arguments
let calledAs = URL(fileURLWithPath: arguments.removeFirst()).lastPathComponent
if let executable = Executable(rawValue: calledAs) {
    await executable.main(arguments)
} else if arguments == ["--list"] {
    print(Executable.allCases.map(\.rawValue).joined(separator: "\n"))
} else if let name = arguments.first, let executable = Executable(rawValue: name) {
    await executable.main(Array(arguments.dropFirst()))
} else {
    let names = Executable.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("usage: \(calledAs) EXECUTABLE [ARGUMENTS…], or a link named after one: \(names)\n".utf8))
    exit(64)
}
