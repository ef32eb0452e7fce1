import JSON
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// An async Varlink client on a Unix socket, on SwiftNIO: one connection, calls answered in order.
///
/// Varlink cancels a stream by closing its connection, so a stream ended by its consumer (a cancelled task,
/// or a `break` out of `for try await`) closes the connection. A connection carries one call at a time;
/// a client that needs several streams at once opens one connection for each.
public final class VarlinkAsyncClient: Sendable {
    /// The largest reply frame accepted; a larger one closes the connection with ``VarlinkClient/ClientError/tooLarge``.
    public static let maximumReplyBytes = 16 << 20

    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Connects to the socket at `path`.
    /// - Throws: ``VarlinkClient/ClientError/connect(path:errno:)`` when nothing listens there.
    public static func connect(
        path: String,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> VarlinkAsyncClient {
        do {
            let channel = try await bootstrap(group).connect(unixDomainSocketPath: path).get()
            return VarlinkAsyncClient(channel: channel)
        } catch let error as IOError {
            throw VarlinkClient.ClientError.connect(path: path, errno: error.errnoCode)
        } catch {
            throw VarlinkClient.ClientError.connect(path: path, errno: ECONNREFUSED)
        }
    }

    /// Connects to the socket at `path` and makes `call` the connection's first call, passing `descriptor` with its
    /// bytes (`SCM_RIGHTS` in the same `sendmsg`, as ``VarlinkClient/send(_:passing:)`` does): what a broker does
    /// with `Hello` and a pidfd of the process it speaks for. The call is sent on a non-blocking socket from the
    /// caller's thread, which never waits (a listener whose queue is full refuses at once); the socket is then
    /// handed to NIO, which reads the reply. The caller keeps and closes `descriptor`.
    /// - Parameter timeout: how long the reply may take; past it the connection is closed.
    /// - Returns: the connection and the call's reply.
    /// - Throws: ``VarlinkError`` for an error reply (the connection is closed); ``VarlinkClient/ClientError`` when
    ///   nothing listens there or the server closes the connection or does not answer in time.
    public static func connect(
        path: String,
        first call: VarlinkCall,
        passing descriptor: Int32,
        timeout: TimeAmount = .seconds(10),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> (client: VarlinkAsyncClient, reply: JSONObject) {
        let sender = try VarlinkClient(path: path, nonBlocking: true)
        try sender.send(call, passing: descriptor)
        let socket = sender.releaseDescriptor()
        let loop = group.next()
        let first = loop.makePromise(of: VarlinkReply.self)
        let channel: any Channel
        do {
            // The channel owns the socket from here, and closes it when it fails to start.
            channel = try await bootstrap(loop, awaiting: first).withConnectedSocket(socket).get()
        } catch {
            first.fail(VarlinkClient.ClientError.closed)
            throw VarlinkClient.ClientError.closed
        }
        // A promise already kept ignores the failure.
        let deadline = loop.scheduleTask(in: timeout) { first.fail(VarlinkClient.ClientError.timedOut) }
        defer { deadline.cancel() }
        let reply: VarlinkReply
        do {
            reply = try await first.futureResult.get()
        } catch {
            channel.close(promise: nil)
            throw error
        }
        if let error = reply.error {
            channel.close(promise: nil)
            throw VarlinkError(name: error, parameters: reply.parameters)
        }
        return (VarlinkAsyncClient(channel: channel), reply.parameters)
    }

    /// A bootstrap whose channels read Varlink replies; `first`, when given, gets the reply to a call sent before
    /// the channel existed.
    private static func bootstrap(
        _ group: any EventLoopGroup,
        awaiting first: EventLoopPromise<VarlinkReply>? = nil
    ) -> ClientBootstrap {
        ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(
                            VarlinkFrameDecoder(maximumFrameLength: VarlinkAsyncClient.maximumReplyBytes)
                        )
                    )
                    try channel.pipeline.syncOperations.addHandler(VarlinkClientHandler(awaiting: first))
                }
            }
    }

    /// Whether the connection is still open.
    public var isActive: Bool { channel.isActive }

    /// Completes when the connection has closed, for any reason.
    public var closeFuture: EventLoopFuture<Void> { channel.closeFuture }

    /// Calls a method and returns its reply's parameters.
    /// - Throws: ``VarlinkError`` for an error reply; ``VarlinkClient/ClientError/closed`` when the connection
    ///   closes before the reply.
    @discardableResult
    public func call(_ method: String, _ parameters: JSONObject = [:]) async throws -> JSONObject {
        let promise = channel.eventLoop.makePromise(of: VarlinkReply.self)
        let request = VarlinkClientRequest(
            call: VarlinkCall(method: method, parameters: parameters),
            sink: .single(promise)
        )
        channel.writeAndFlush(request).whenFailure { _ in promise.fail(VarlinkClient.ClientError.closed) }
        let reply = try await promise.futureResult.get()
        if let error = reply.error { throw VarlinkError(name: error, parameters: reply.parameters) }
        return reply.parameters
    }

    /// Starts a `more` call and returns its replies: each `continues` reply, then the final one, after which the
    /// sequence ends. An error reply ends it by throwing ``VarlinkError``; the connection closing ends it by
    /// throwing ``VarlinkClient/ClientError/closed``. Ending the iteration early closes the connection.
    public func stream(_ method: String, _ parameters: JSONObject = [:]) -> AsyncThrowingStream<JSONObject, any Error> {
        Self.stream(on: channel, method, parameters)
    }

    /// Connects to the socket at `path` and starts a `more` call on the event loop as soon as the connection is
    /// open, as ``stream(_:_:)`` does: the call goes out however long the caller's task then waits for a thread,
    /// so a busy process does not leave the connection silent past a server's idle timeout.
    /// - Throws: ``VarlinkClient/ClientError/connect(path:errno:)`` when nothing listens there.
    public static func connect(
        path: String,
        streaming method: String,
        _ parameters: JSONObject = [:],
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> (client: VarlinkAsyncClient, replies: AsyncThrowingStream<JSONObject, any Error>) {
        do {
            return try await bootstrap(group).connect(unixDomainSocketPath: path)
                .map { channel in (VarlinkAsyncClient(channel: channel), stream(on: channel, method, parameters)) }
                .get()
        } catch let error as IOError {
            throw VarlinkClient.ClientError.connect(path: path, errno: error.errnoCode)
        } catch {
            throw VarlinkClient.ClientError.connect(path: path, errno: ECONNREFUSED)
        }
    }

    private static func stream(
        on channel: any Channel,
        _ method: String,
        _ parameters: JSONObject
    ) -> AsyncThrowingStream<JSONObject, any Error> {
        let (replies, continuation) = AsyncThrowingStream.makeStream(of: JSONObject.self)
        continuation.onTermination = { termination in
            if case .cancelled = termination { channel.close(promise: nil) }
        }
        let request = VarlinkClientRequest(
            call: VarlinkCall(method: method, parameters: parameters, more: true),
            sink: .stream(continuation)
        )
        channel.writeAndFlush(request).whenFailure { _ in
            continuation.finish(throwing: VarlinkClient.ClientError.closed)
        }
        return replies
    }

    /// Closes the connection; calls still waiting fail with ``VarlinkClient/ClientError/closed``.
    public func close() {
        channel.close(promise: nil)
    }
}
