import Foundation
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
/// A stream the server closes is opened again after its `retry` delay; one that fails (the
/// network, a gateway restart, a `429` or `503`) after a doubling backoff or the server's
/// `Retry-After`. Each resumes with `Last-Event-ID`: the gateway first sends the latest timeline of
/// every widget that changed since, so nothing is missed. It ends by throwing when the gateway
/// refuses for good (a token it will not take), or by cancellation.
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
        typealias Events = ServerSentEventsDeserializationSequence<ServerSentEventsLineDeserializationSequence<HTTPBody>>

        let client: WidgetBusClient
        var lastEventID: String?
        var events: Events.AsyncIterator?
        /// The wait before reconnecting after the server closed a stream; its `retry` field sets it.
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
                    failures = 0
                    if let retry = event.retry { reconnectDelay = .milliseconds(retry) }
                    // An event without an id keeps the last one, as the SSE specification says.
                    if let id = event.id { lastEventID = id }
                    guard event.event == "timeline", let id = lastEventID, let data = event.data else { continue }
                    // A timeline this client cannot read (a widget kind newer than it) is passed
                    // over, not retried: reconnecting would only be sent it again.
                    guard let timeline = try? JSONDecoder.gateway.decode(Components.Schemas.TimelineBody.self, from: Data(data.utf8)) else {
                        continue
                    }
                    return TimelineChange(id: id, timeline: timeline)
                } catch let error as WidgetBusClientError where !error.isTransient {
                    throw error
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    // Unreachable, refused for now (429, 503), dropped, or a body cut mid-event:
                    // open again, resuming, after the backoff or the server's Retry-After.
                    events = nil
                    failures += 1
                    let retryAfter = (error as? WidgetBusClientError)?.retryAfter
                    try await Task.sleep(for: client.retries.delay(afterFailures: failures, retryAfter: retryAfter) ?? retryAfter ?? reconnectDelay)
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
            return try ok.body.textEventStream.asDecodedServerSentEvents().makeAsyncIterator()
        }
    }
}
