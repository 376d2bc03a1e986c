import Hummingbird

/// Answers a request whose response lasts (an event stream) from a child task of its own, and
/// every other request inline.
///
/// A Swift task keeps every slab of memory its deepest call chain ever took until the task ends,
/// and a connection's task lives as long as the connection. Routing, the middlewares and token
/// verification take about 20 slabs of 1 kB; an event stream then writes for hours beneath them,
/// every slab still held. From a child task they go back as soon as the response is decided,
/// and the stream's connection keeps only what writing it needs. A request answered at once gains
/// nothing from this and would pay for the task, so it is answered inline.
struct LastingResponseResponder<Base: HTTPResponder>: HTTPResponder where Base.Context: Sendable {
    let base: Base

    func respond(to request: Request, context: Base.Context) async throws -> Response {
        guard APIOperation.of(request)?.lasts == true else { return try await base.respond(to: request, context: context) }
        return try await withThrowingTaskGroup(of: Response.self) { group in
            group.addTask { try await base.respond(to: request, context: context) }
            guard let response = try await group.next() else { preconditionFailure("a group of one task yields one result") }
            return response
        }
    }
}
