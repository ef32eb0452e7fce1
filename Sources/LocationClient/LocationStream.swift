/// An asynchronous sequence of what locd streams to the app: diagnostics, updates, authorization changes or
/// monitor events.
///
/// Each iteration opens its own connection (a Varlink connection carries one call at a time), says `Hello` on it
/// and starts the streaming call. Ending the iteration — leaving the `for try await` loop or cancelling its task —
/// closes that connection, which is how Varlink cancels a stream. When the daemon restarts, the iteration
/// reconnects by itself and carries on where it was; it ends by throwing only when it cannot (the session could not
/// be taken back, or the daemon stayed away past the ``ReconnectPolicy``).
public struct LocationStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias AsyncIterator = AsyncThrowingStream<Element, any Error>.Iterator
    public typealias Continuation = AsyncThrowingStream<Element, any Error>.Continuation

    private let bufferingPolicy: Continuation.BufferingPolicy
    private let produce: @Sendable (Continuation) async throws -> Void

    /// - Parameters:
    ///   - bufferingPolicy: what to keep while the consumer is slower than the daemon.
    ///   - produce: runs the stream, yielding into the continuation until the stream is over; it is cancelled when
    ///     the iteration ends.
    init(
        bufferingPolicy: Continuation.BufferingPolicy = .unbounded,
        produce: @escaping @Sendable (Continuation) async throws -> Void
    ) {
        self.bufferingPolicy = bufferingPolicy
        self.produce = produce
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Element.self,
            throwing: (any Error).self,
            bufferingPolicy: bufferingPolicy
        )
        let produce = self.produce
        let task = Task {
            do {
                try await produce(continuation)
                continuation.finish()
            } catch is CancellationError {
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream.makeAsyncIterator()
    }
}
