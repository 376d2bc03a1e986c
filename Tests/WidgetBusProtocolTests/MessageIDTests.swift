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

    @Test func placeEveryBitWhereUUIDPutsIt() {
        let high: UInt64 = 0x0123_4567_89AB_CDEF
        let low: UInt64 = 0xFEDC_BA98_7654_3210
        // Version nibble (C → 4) and variant bits (FE → BE) overwritten; every other digit kept.
        #expect(MessageID.format(high: high, low: low) == "01234567-89ab-4def-bedc-ba9876543210")
        #expect(MessageID.format(high: 0, low: 0) == "00000000-0000-4000-8000-000000000000")
    }

    @Test func doNotRepeat() {
        let ids = (0..<10_000).map { _ in MessageID.random() }
        #expect(Set(ids).count == ids.count)
    }
}
