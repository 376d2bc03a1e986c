import Foundation
import Testing
import WidgetBusProtocol
import WidgetDomain

/// The last guard before the file system: a snapshot path never leaves its root.
struct SnapshotPathTests {
    @Test(arguments: ["alice", "user-42", "a.b", ".hidden", "...", "ünïcødé 🙂", String(repeating: "x", count: 128)])
    func anOrdinaryUserIDIsAFolderUnderTheRoot(user: String) throws {
        let path = try SnapshotPath(root: "/srv/snapshots", user: user, kind: .tensionCheck)
        #expect(path.directory == "/srv/snapshots/\(user)")
        #expect(path.file == "/srv/snapshots/\(user)/TensionCheckWidget.json")
        #expect(URL(fileURLWithPath: path.file).standardized.path.hasPrefix("/srv/snapshots/"))
    }

    @Test(arguments: [
        "", ".", "..", "../etc", "../../etc/passwd", "a/../../b", "/etc/passwd", "a/b", "a\\b", "nul\u{0}byte",
        "line\nbreak", "tab\there", "esc\u{1B}", "del\u{7F}", "zero\u{200B}width", String(repeating: "x", count: 129),
    ])
    func aUserIDThatCouldLeaveTheRootIsRefused(user: String) {
        #expect(throws: SnapshotPath.Refused.self) {
            try SnapshotPath(root: "/srv/snapshots", user: user, kind: .tensionCheck)
        }
    }

    @Test func everyWidgetKindIsASafeFileName() throws {
        for kind in WidgetKind.allCases {
            #expect(try SnapshotPath(root: "r", user: "u", kind: kind).file == "r/u/\(kind.rawValue).json")
        }
    }

    @Test func aRelativeRootStaysRelative() throws {
        let path = try SnapshotPath(root: "./.widgetbus/snapshots", user: "bob", kind: .tensionCheck)
        #expect(path.file == "./.widgetbus/snapshots/bob/TensionCheckWidget.json")
    }
}
