import Foundation
import Testing
@testable import WidgetBusProtocol

@Suite("Message ids")
struct MessageIDTests {
    @Test func areLowercaseVersionFourUUIDs() {
        for _ in 0..<1_000 {
            let id = MessageID.random()
            #expect(id.utf8.count == 36)
            #expect(id == id.lowercased())
            let parsed = UUID(uuidString: id)
            #expect(parsed?.uuidString.lowercased() == id)
            let bytes = parsed.map { withUnsafeBytes(of: $0.uuid) { Array($0) } } ?? []
            #expect(bytes.count == 16 && bytes[6] >> 4 == 4 && bytes[8] >> 6 == 0b10, "\(id)")
        }
    }

    @Test func doNotRepeat() {
        let ids = (0..<10_000).map { _ in MessageID.random() }
        #expect(Set(ids).count == ids.count)
    }
}
