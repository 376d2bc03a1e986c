import OpenAPIRuntime

/// One change of one of the user's widgets, from `GET /v1/events`.
public struct TimelineChange: Sendable, Hashable {
    /// The event's id: pass it to ``WidgetBusClient/events(after:)`` to resume after it.
    public var id: String
    /// The widget's new timeline.
    public var timeline: Components.Schemas.TimelineBody
}

/// The user's timeline changes as the gateway sends them, for as long as the caller iterates.
///
/// A dropped stream (the network, a gateway restart) is opened again after the server's `retry`
/// delay, or a doubling backoff while the gateway cannot be reached, and resumes with
/// `Last-Event-ID`: the gateway first sends the latest timeline of every widget that changed since,
/// so nothing is missed. It ends by throwing when the gateway refuses for good (a token it will not
/// take), or by cancellation.
///
/// It needs a transport that streams response bodies: URLSession on Apple platforms, or
/// AsyncHTTPClient's (swift-openapi-async-http-client); swift-corelibs-foundation's URLSession
/// buffers a body until it ends, so on Linux this needs AsyncHTTPClient.
public struct TimelineChanges: AsyncSequence, Sendable {
    public typealias Element = TimelineChange

    let client: WidgetBusClient
    let lastEventID: String?

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(client: client, lastEventID: lastEventID)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        typealias Events = AsyncThrowingMapSequence<
            ServerSentEventsDeserializationSequence<ServerSentEventsLineDeserializationSequence<HTTPBody>>,
            ServerSentEventWithJSONData<Components.Schemas.TimelineBody>
        >

        let client: WidgetBusClient
        var lastEventID: String?
        var events: Events.AsyncIterator?
        /// The wait before reconnecting after a stream ends; the server's `retry` field sets it.
        var reconnectDelay = Duration.seconds(1)
        /// Failures to open or read a stream since the last event.
        var failures = 0

        public mutating func next() async throws -> TimelineChange? {
            while true {
                try Task.checkCancellation()
                do {
                    if events == nil { events = try await open() }
                    guard let event = try await events?.next() else {
                        events = nil  // the server closed the stream: reconnect after its delay
                        try await Task.sleep(for: reconnectDelay)
                        continue
                    }
                    if let retry = event.retry { reconnectDelay = .milliseconds(retry) }
                    guard event.event == "timeline", let id = event.id, let timeline = event.data else { continue }
                    lastEventID = id
                    failures = 0
                    return TimelineChange(id: id, timeline: timeline)
                } catch let error as WidgetBusClientError where !error.isTransient {
                    throw error
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    // Unreachable, dropped, or a body cut mid-event: open again, resuming.
                    events = nil
                    failures += 1
                    try await Task.sleep(for: client.retries.delay(afterFailures: failures, retryAfter: nil) ?? reconnectDelay)
                }
            }
        }

        private func open() async throws -> Events.AsyncIterator {
            let output: Operations.Events.Output
            do {
                output = try await client.api.events(headers: .init(lastEventID: lastEventID))
            } catch {
                throw WidgetBusClientError.from(error)
            }
            guard case .ok(let ok) = output else { throw WidgetBusClientError.unexpectedResponse(operation: "events", status: nil) }
            return try ok.body.textEventStream
                .asDecodedServerSentEventsWithJSONData(of: Components.Schemas.TimelineBody.self, decoder: .gateway)
                .makeAsyncIterator()
        }
    }
}
