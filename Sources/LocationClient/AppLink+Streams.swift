import JSON
import LocationProtocol
import Varlink

extension AppLink {
    /// What a stream's reply handler wants next.
    enum StreamStep: Sendable {
        case more
        case finished
    }

    /// Runs one streaming call until the daemon ends it, the handler says it is finished, the client is closed or
    /// the task is cancelled — across daemon restarts.
    ///
    /// Each attempt opens a connection, says `Hello` on it and starts the call. When the connection breaks, the
    /// stream asks the link to ``recover(after:)``: after a daemon restart that waits until the app's sessions are
    /// taken back, and the call is started again; if only this connection was dropped, it is started again after a
    /// backoff delay. An error reply ends the stream by throwing it.
    /// - Parameters:
    ///   - session: the session the stream is about: once it has ended the stream is not reopened, and once a
    ///     reconnection lost it the stream throws.
    ///   - handle: gets each reply and whether it is the first since the call was (re)started.
    nonisolated func follow(
        _ method: String,
        _ parameters: JSONObject,
        session: String? = nil,
        handle: (JSONObject, _ first: Bool) async throws -> StreamStep
    ) async throws {
        guard var generation = try await streamGeneration() else { return }
        var delay = policy.initialDelay
        while !Task.isCancelled {
            if let session, let end = await end(of: session) {
                if case .lost(let error) = end { throw error }
                return
            }
            do {
                try await runOnce(method, parameters, handle: handle)
                return
            } catch let error as VarlinkError {
                throw LocationClientError(error)
            } catch let error as VarlinkClient.ClientError {
                if Task.isCancelled { return }
                // A reply that cannot be read will not read better on another connection.
                if error == .malformedReply || error == .tooLarge {
                    throw LocationClientError.unexpectedReply("\(error)")
                }
                guard let next = try await recover(after: generation) else { return }
                if next == generation {
                    // The daemon is up and dropped only this stream (or has not let go yet): do not hammer it.
                    try await Task.sleep(for: policy.jittered(delay))
                    delay = policy.next(after: delay)
                } else {
                    delay = policy.initialDelay
                }
                generation = next
            }
        }
    }

    /// One connection's worth of a stream: returns when the call ends or the task is cancelled; throws
    /// ``VarlinkClient/ClientError`` when the connection fails or breaks.
    ///
    /// A stream the daemon ended with its final reply leaves its connection free, with its `Hello` said: it is
    /// kept for the next stream (``AppLink/park(_:)``). A kept connection the daemon has closed meanwhile fails
    /// before its first reply; the stream is then opened again on a new connection at once.
    private nonisolated func runOnce(
        _ method: String,
        _ parameters: JSONObject,
        handle: (JSONObject, _ first: Bool) async throws -> StreamStep
    ) async throws {
        if let kept = await unpark() {
            var replied = false
            do {
                return try await run(method, parameters, on: kept, replied: &replied, handle: handle)
            } catch is VarlinkClient.ClientError where !replied {
                // The daemon closed the kept connection: a new one below.
            }
        }
        // A brokered stream says Hello as it connects; an app's own says it on the connection it adopted.
        let connection =
            if let process {
                try await brokeredConnection(process, hello: await helloParameters).client
            } else {
                try await VarlinkAsyncClient.connect(path: socketPath)
            }
        guard await adopt(connection) else {
            connection.close()
            return
        }
        if process == nil {
            do {
                try await connection.call(AppMethod.hello.name, await helloParameters)
            } catch {
                connection.close()
                await release(connection)
                throw error
            }
        }
        var replied = false
        try await run(method, parameters, on: connection, replied: &replied, handle: handle)
    }

    /// Runs the call on `connection`, registered as a stream's, until it ends; `replied` says whether a reply came.
    private nonisolated func run(
        _ method: String,
        _ parameters: JSONObject,
        on connection: VarlinkAsyncClient,
        replied: inout Bool,
        handle: (JSONObject, _ first: Bool) async throws -> StreamStep
    ) async throws {
        do {
            try Task.checkCancellation()
            var first = true
            for try await reply in connection.stream(method, parameters) {
                replied = true
                let step = try await handle(reply, first)
                first = false
                if case .finished = step {
                    // The call goes on at the daemon: only closing the connection ends it.
                    connection.close()
                    await release(connection)
                    return
                }
            }
        } catch {
            connection.close()
            await release(connection)
            throw error
        }
        if Task.isCancelled {
            connection.close()
            await release(connection)
        } else {
            await park(connection)
        }
    }
}
