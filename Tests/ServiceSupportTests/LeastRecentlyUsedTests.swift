import Testing

@testable import ServiceSupport

struct LeastRecentlyUsedTests {
    @Test func keepsWhatFitsAndReadsItBack() {
        var cache = LeastRecentlyUsed<String, Int>(capacity: 3)
        cache.set(1, for: "a")
        cache.set(2, for: "b")
        cache.set(20, for: "b")
        #expect(cache.count == 2)
        #expect(cache.value(for: "a") == 1)
        #expect(cache.value(for: "b") == 20)
        #expect(cache.value(for: "z") == nil)
    }

    @Test func overCapacityForgetsTheLeastRecentlyUsedFirst() {
        var cache = LeastRecentlyUsed<Int, Int>(capacity: 16)
        for key in 0..<16 { cache.set(key, for: key) }
        // Reading the oldest eight makes 8…15 the least recently used.
        for key in 0..<8 { _ = cache.value(for: key) }
        cache.set(16, for: 16)
        #expect(cache.count <= 16)
        #expect(cache.count >= 14)  // an eighth of the capacity is evicted at once
        for key in 0..<8 { #expect(cache.value(for: key) == key, "read recently, so kept: \(key)") }
        #expect(cache.value(for: 16) == 16)
        #expect(cache.value(for: 8) == nil)
        #expect(cache.value(for: 9) == nil)
    }

    @Test func neverHoldsMoreThanItsCapacity() {
        var cache = LeastRecentlyUsed<Int, Int>(capacity: 100)
        for key in 0..<10_000 {
            cache.set(key, for: key)
            #expect(cache.count <= 100)
        }
        #expect(cache.value(for: 9_999) == 9_999)
        cache.removeValue(for: 9_999)
        #expect(cache.value(for: 9_999) == nil)
        cache.removeAll()
        #expect(cache.count == 0)
    }
}
