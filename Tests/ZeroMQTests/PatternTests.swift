import Foundation
import Testing
import ZeroMQ

/// The socket patterns the services use, each over inproc:// and tcp://127.0.0.1.
@Suite("Socket patterns")
struct PatternTests {
    @Test(arguments: Transport.allCases)
    func requestReplyRoundTrip(transport: Transport) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let rep = try fixture.socket(.rep)
        let req = try fixture.socket(.req)
        try fixture.link(rep, req, over: transport)

        #expect(try req.send("ping"))
        #expect(try rep.receiveMessage() == [Data("ping")])
        #expect(try rep.send("pong"))
        #expect(try req.receiveMessage() == [Data("pong")])
        // A second round proves the REQ/REP state machine went back to the start.
        try req.send("ping 2")
        #expect(try rep.receiveMessage() == [Data("ping 2")])
    }

    @Test(arguments: Transport.allCases)
    func dealerToRouterCarriesRoutingID(transport: Transport) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let router = try fixture.socket(.router)
        let dealer = try fixture.socket(.dealer)
        try dealer.setRoutingID(Data("client-1"))
        try fixture.link(router, dealer, over: transport)

        try dealer.send([Data("hello"), Data("world")])
        let request = try #require(try router.receiveMessage())
        #expect(request == [Data("client-1"), Data("hello"), Data("world")])

        // The ROUTER addresses its reply with the routing id frame, which the dealer never sees.
        try router.send([request[0], Data("reply")])
        #expect(try dealer.receiveMessage() == [Data("reply")])
    }

    @Test func routerMandatoryRejectsUnknownPeer() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let router = try fixture.socket(.router)
        try router.setRouterMandatory(true)
        _ = try fixture.bind(router, over: .inproc)

        let error = #expect(throws: ZMQError.self) {
            try router.send([Data("nobody"), Data("hi")])
        }
        #expect(error?.errno == EHOSTUNREACH)
    }

    @Test(arguments: Transport.allCases)
    func pushPull(transport: Transport) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let pull = try fixture.socket(.pull)
        let push = try fixture.socket(.push)
        try fixture.link(pull, push, over: transport)

        for index in 0..<100 {
            #expect(try push.send("job \(index)"))
        }
        for index in 0..<100 {
            #expect(try pull.receiveMessage() == [Data("job \(index)")])
        }
        #expect(try pull.receiveMessage(dontWait: true) == nil)
    }

    @Test(arguments: Transport.allCases)
    func publishSubscribeFiltersByPrefix(transport: Transport) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let pub = try fixture.socket(.pub)
        let sub = try fixture.socket(.sub)
        try sub.subscribe("weather.")
        try sub.setReceiveTimeout(milliseconds: 20)
        try fixture.link(pub, sub, over: transport)

        // Slow joiner: PUB drops everything until the subscription has reached it, so
        // publish until the first matching message gets through (bounded).
        var received: [[Data]] = []
        for round in 0..<250 where received.isEmpty {
            try pub.send([Data("sports.\(round)"), Data("goal")])
            try pub.send([Data("weather.\(round)"), Data("rain")])
            if let message = try sub.receiveMessage() { received.append(message) }
        }
        #expect(!received.isEmpty, "subscriber never joined")

        // Now a non-matching and a matching topic, in that order: if filtering failed, the
        // sports message would arrive before weather.end.
        try pub.send([Data("sports.end"), Data("final")])
        try pub.send([Data("weather.end"), Data("sun")])
        try sub.setReceiveTimeout(milliseconds: 2_000)
        while received.last?.first != Data("weather.end"), received.count < 500 {
            guard let message = try sub.receiveMessage() else { break }
            received.append(message)
        }
        #expect(received.last == [Data("weather.end"), Data("sun")])
        #expect(received.allSatisfy { $0.count == 2 && $0[0].text.hasPrefix("weather.") })
    }

    @Test(arguments: Transport.allCases)
    func xpubReceivesEachSubscriptionBeforeItsFirstMessage(transport: Transport) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let xpub = try fixture.socket(.xpub)
        let sub = try fixture.socket(.sub)
        try xpub.setReceiveTimeout(milliseconds: 2_000)
        try sub.setReceiveTimeout(milliseconds: 2_000)
        try fixture.link(xpub, sub, over: transport)
        try sub.subscribe("weather.")

        // Once the subscription has reached the XPUB, the next message on its topic is delivered:
        // no waiting through the slow-joiner window.
        #expect(try xpub.receiveMessage() == [Data("\u{1}weather.".utf8)])
        try xpub.send([Data("weather.today"), Data("rain")])
        #expect(try sub.receiveMessage() == [Data("weather.today"), Data("rain")])

        try sub.unsubscribe("weather.")
        #expect(try xpub.receiveMessage() == [Data("\u{0}weather.".utf8)])
    }

    @Test func unsubscribeStopsDelivery() throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let pub = try fixture.socket(.pub)
        let sub = try fixture.socket(.sub)
        try sub.subscribe("a")
        try sub.subscribe(Data("b"))
        try sub.setReceiveTimeout(milliseconds: 20)
        try fixture.link(pub, sub, over: .inproc)
        try sub.unsubscribe("a")

        // inproc subscriptions are processed in order, so "a" is gone once "b" flows.
        var first: [Data]?
        for _ in 0..<250 where first == nil {
            try pub.send("a1")
            try pub.send("b1")
            first = try sub.receiveMessage()
        }
        #expect(first == [Data("b1")])
        try pub.send("a2")
        try pub.send("b2")
        try sub.setReceiveTimeout(milliseconds: 2_000)
        var next = try sub.receiveMessage()
        while next == [Data("b1")] { next = try sub.receiveMessage() }
        #expect(next == [Data("b2")])
    }

    @Test(arguments: Transport.allCases)
    func pairIsBidirectional(transport: Transport) throws {
        let fixture = try Fixture()
        defer { fixture.tearDown() }
        let left = try fixture.socket(.pair)
        let right = try fixture.socket(.pair)
        try fixture.link(left, right, over: transport)

        try right.send("to left")
        #expect(try left.receiveMessage() == [Data("to left")])
        try left.send("to right")
        #expect(try right.receiveMessage() == [Data("to right")])
    }
}
