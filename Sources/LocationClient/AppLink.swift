import Foundation
import JSON
import LocationProtocol
import Varlink

/// The app's link to locd: the control connection that carries its calls and owns its sessions, and the
/// reconnection that brings both back when the daemon restarts (SEMANTICS R3).
///
/// The sessions an app creates belong to the connection that created them, so they all live on one control
/// connection. When it closes without the app asking, the link reconnects with backoff, says `Hello` again with
/// the app's last state, and takes back with `ResumeSession` every session the app has not ended. Each
/// reconnection counts as a new ``generation``; streams wait for it before they reopen, so they never see a session
/// in the lingering state between the restart and its resumption.
actor AppLink {
    /// How a session the app created stands, as far as this client knows.
    enum SessionEnd: Sendable {
        /// The app invalidated it, or the daemon ended it and said so.
        case ended
        /// A reconnection could not take it back.
        case lost(LocationClientError)
    }

    let appID: String
    let socketPath: String
    let policy: ReconnectPolicy
    /// The process the link speaks for when a broker made it; `nil` when the app speaks for itself.
    let process: BrokeredProcess?
    private(set) var appState: AppState
    private(set) var lastAuthorization: Authorization?
    /// The app's lingering sessions, as the last `Hello` on the control connection listed them.
    private(set) var lingeringAtHello: [LingeringSession] = []
    private var control: VarlinkAsyncClient?
    /// Counts successful attachments; a stream compares it to know whether a reconnection happened since.
    private var generation: UInt64 = 0
    private var reconnecting: Task<UInt64, any Error>?
    /// Set once the link is over: closed by the app, or given up; every later call throws it.
    private var failure: LocationClientError?
    private var closedByApp = false
    /// The look at the terminal's job control, while the app has not reported a state itself (SEMANTICS L9).
    private var following: Task<Void, Never>?
    /// Sessions to take back after a reconnection, in the order they were created.
    private var liveSessions: [String] = []
    private var endedSessions: [String: SessionEnd] = [:]
    /// The connections of open streams, so that closing the client closes them too.
    private var streamConnections: [ObjectIdentifier: VarlinkAsyncClient] = [:]
    /// Connections whose stream the daemon ended with a final reply (a session's stream, SEMANTICS U18), each with
    /// its `Hello` said, kept for the next stream; at most ``idleStreamConnections``.
    private var idleConnections: [(connection: VarlinkAsyncClient, generation: UInt64)] = []
    static let idleStreamConnections = 2

    init(appID: String, socketPath: String, state: AppState, policy: ReconnectPolicy, process: BrokeredProcess? = nil) {
        self.appID = appID
        self.socketPath = socketPath
        self.appState = state
        self.policy = policy
        self.process = process
    }

    var helloParameters: JSONObject {
        var parameters: JSONObject = ["appId": .string(appID), "state": .string(appState.rawValue)]
        if let process {
            parameters["process"] = .int(Int64(process.pid))
            if let description = process.description { parameters["description"] = .string(description) }
        }
        return parameters
    }

    /// A brokered connection: connected, with `Hello` said passing the pidfd of the process spoken for in the same
    /// `sendmsg` (SEMANTICS I8, I9); its reply with it.
    nonisolated func brokeredConnection(
        _ process: BrokeredProcess,
        hello: JSONObject
    ) async throws -> (client: VarlinkAsyncClient, reply: JSONObject) {
        try await VarlinkAsyncClient.connect(
            path: socketPath,
            first: VarlinkCall(method: AppMethod.hello.name, parameters: hello),
            passing: process.descriptor
        )
    }

    // MARK: Attaching

    /// The first connection: one attempt, so that an app started without a daemon hears so at once.
    func start() async throws {
        do {
            _ = try await attach()
        } catch let error as VarlinkClient.ClientError {
            throw LocationClientError.daemonUnavailable(socketPath: socketPath, reason: "\(error)")
        } catch let error as VarlinkError {
            throw LocationClientError(error)
        }
    }

    /// Connects, says `Hello`, takes back the live sessions and makes the connection the control connection.
    private func attach() async throws -> UInt64 {
        let connection: VarlinkAsyncClient
        let hello: JSONObject
        if let process {
            (connection, hello) = try await brokeredConnection(process, hello: helloParameters)
        } else {
            connection = try await VarlinkAsyncClient.connect(path: socketPath)
            do {
                hello = try await connection.call(AppMethod.hello.name, helloParameters)
            } catch {
                connection.close()
                throw error
            }
        }
        do {
            lastAuthorization = try? Authorization(wire: hello["authorization"])
            lingeringAtHello = hello["lingeringSessions"]?.arrayValue?.compactMap(LingeringSession.init(wire:)) ?? []
            for id in liveSessions {
                do {
                    try await connection.call(AppMethod.resumeSession.name, ["id": .string(id)])
                } catch let error as VarlinkError
                    where error.name == WireErrorName.sessionInvalidated.name
                    || error.name == WireErrorName.noSuchSession.name
                {
                    // Ended while the daemon was away (its relaunch window closed): the app must hear it.
                    forget(id, as: .lost(.sessionInvalidated(id: id, message: LocationClientError(error).message)))
                }
            }
        } catch {
            connection.close()
            throw error
        }
        if closedByApp {
            connection.close()
            throw LocationClientError.closed
        }
        control = connection
        generation += 1
        let attached = generation
        connection.closeFuture.whenComplete { _ in
            Task { await self.controlClosed(generation: attached) }
        }
        return generation
    }

    /// The control connection of `generation` closed: unless the app closed it, reconnect.
    private func controlClosed(generation closed: UInt64) {
        guard closed == generation, !closedByApp, failure == nil, reconnecting == nil else { return }
        control = nil
        Task { _ = try? await reconnect() }
    }

    /// Reconnects once for everyone who asks while it runs; returns the new generation.
    private func reconnect() async throws -> UInt64 {
        if let failure { throw failure }
        if let reconnecting { return try await reconnecting.value }
        control?.close()
        control = nil
        let task = Task { try await self.attachWithBackoff() }
        reconnecting = task
        do {
            let attached = try await task.value
            reconnecting = nil
            return attached
        } catch {
            reconnecting = nil
            let reason = error as? LocationClientError ?? .daemonUnavailable(socketPath: socketPath, reason: "\(error)")
            let final = failure ?? reason
            failure = final
            throw final
        }
    }

    private func attachWithBackoff() async throws -> UInt64 {
        let clock = ContinuousClock()
        let giveUp = clock.now.advanced(by: policy.giveUpAfter)
        var delay = policy.initialDelay
        while true {
            if let failure { throw failure }
            do {
                return try await attach()
            } catch let error as VarlinkClient.ClientError {
                // The daemon is not back yet (or went away again while we attached): wait and retry.
                if clock.now.advanced(by: delay) > giveUp {
                    throw LocationClientError.daemonUnavailable(
                        socketPath: socketPath,
                        reason: "\(error); gave up after \(policy.giveUpAfter)"
                    )
                }
            } catch let error as VarlinkError {
                // The daemon answered and refused the app (its manifest is gone, or its identity changed).
                throw LocationClientError(error)
            }
            try await Task.sleep(for: policy.jittered(delay))
            delay = policy.next(after: delay)
        }
    }

    /// The control connection, reconnecting first if it is down.
    private func liveControl() async throws -> VarlinkAsyncClient {
        if let failure { throw failure }
        if let control, control.isActive { return control }
        _ = try await reconnect()
        guard let control else { throw failure ?? .connectionLost }
        return control
    }

    // MARK: Calls

    /// Calls a method on the control connection.
    /// - Parameter retry: the call may be sent again after a reconnection if the connection broke under it
    ///   (it changes nothing when repeated).
    @discardableResult
    func call(_ method: String, _ parameters: JSONObject = [:], retry: Bool = false) async throws -> JSONObject {
        var retried = false
        while true {
            let connection = try await liveControl()
            do {
                return try await connection.call(method, parameters)
            } catch let error as VarlinkError {
                throw LocationClientError(error)
            } catch let error as VarlinkClient.ClientError where error == .malformedReply || error == .tooLarge {
                throw LocationClientError.unexpectedReply("\(error)")
            } catch {
                if !retry || retried { throw LocationClientError.connectionLost }
                retried = true
            }
        }
    }

    /// The app's own report: it ends any following of the terminal (SEMANTICS L9).
    func setAppState(_ state: AppState) async throws {
        following?.cancel()
        following = nil
        appState = state
        try await call(AppMethod.setAppState.name, ["state": .string(state.rawValue)], retry: true)
    }

    /// Reports the terminal's job control for the app, once a second, until the app reports a state itself or the
    /// link is over (SEMANTICS L9).
    func follow(_ terminal: TerminalJob) {
        following = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: TerminalJob.interval)
                guard let self, let state = terminal.state, await self.report(state) else { return }
            }
        }
    }

    /// One look at the terminal, told to the daemon when it changed; answers whether to look again. A call that
    /// finds the daemon away changes nothing more: the `Hello` of the reconnection carries the new state.
    private func report(_ state: AppState) async -> Bool {
        guard following != nil, failure == nil else { return false }
        if state != appState {
            appState = state
            _ = try? await call(AppMethod.setAppState.name, ["state": .string(state.rawValue)], retry: true)
        }
        return failure == nil
    }

    func noteAuthorization(_ authorization: Authorization) {
        lastAuthorization = authorization
    }

    // MARK: Sessions

    /// Remembers a session the app now holds, so that a reconnection takes it back.
    func track(_ id: String) {
        guard endedSessions[id] == nil, !liveSessions.contains(id) else { return }
        liveSessions.append(id)
    }

    func invalidate(_ id: String) async {
        guard liveSessions.contains(id) else { return }
        forget(id, as: .ended)
        // A session the daemon no longer has is as ended as the app wants it: nothing to report.
        _ = try? await call(AppMethod.invalidateSession.name, ["id": .string(id)], retry: true)
    }

    /// The daemon said the session ended (the final reply of its diagnostics).
    func sessionEnded(_ id: String) {
        forget(id, as: .ended)
    }

    func end(of id: String) -> SessionEnd? {
        endedSessions[id]
    }

    private func forget(_ id: String, as end: SessionEnd) {
        liveSessions.removeAll { $0 == id }
        if endedSessions[id] == nil { endedSessions[id] = end }
    }

    // MARK: Streams

    /// The generation a stream starts in, after any reconnection under way; `nil` once the app closed the client.
    func streamGeneration() async throws -> UInt64? {
        if closedByApp { return nil }
        if let failure { throw failure }
        if let reconnecting { return try await reconnecting.value }
        return generation
    }

    /// A stream's connection broke in `observed`: returns the generation to reopen in — a later one once the link
    /// has reconnected, the same one if the daemon still answers the control connection (only the stream was
    /// dropped) — or `nil` once the app closed the client.
    func recover(after observed: UInt64) async throws -> UInt64? {
        if closedByApp { return nil }
        if let failure { throw failure }
        if generation > observed { return generation }
        if let reconnecting { return try await reconnecting.value }
        if let control, control.isActive {
            do {
                try await connectionProbe(control)
                return generation
            } catch {
                // The daemon is gone: fall through and reconnect.
            }
        }
        if closedByApp { return nil }
        if generation > observed { return generation }
        return try await reconnect()
    }

    /// A call that any live daemon answers, to tell a dropped stream from a daemon that went away.
    private func connectionProbe(_ connection: VarlinkAsyncClient) async throws {
        do {
            try await connection.call(AppMethod.getAuthorization.name)
        } catch is VarlinkError {
            // An error reply is still an answer.
        }
    }

    /// Registers a stream's connection; `false` once the app closed the client.
    func adopt(_ connection: VarlinkAsyncClient) -> Bool {
        guard !closedByApp else { return false }
        streamConnections[ObjectIdentifier(connection)] = connection
        return true
    }

    func release(_ connection: VarlinkAsyncClient) {
        streamConnections.removeValue(forKey: ObjectIdentifier(connection))
    }

    /// A connection whose stream ended with the daemon's final reply: kept for the next stream, or closed when the
    /// client is closed or enough are kept.
    func park(_ connection: VarlinkAsyncClient) {
        streamConnections.removeValue(forKey: ObjectIdentifier(connection))
        guard !closedByApp, failure == nil, connection.isActive, idleConnections.count < Self.idleStreamConnections
        else { return connection.close() }
        idleConnections.append((connection, generation))
    }

    /// A kept connection of this generation that is still open, registered as a stream's, if there is one.
    func unpark() -> VarlinkAsyncClient? {
        while let (connection, parkedIn) = idleConnections.popLast() {
            guard parkedIn == generation, connection.isActive, !closedByApp else {
                connection.close()
                continue
            }
            streamConnections[ObjectIdentifier(connection)] = connection
            return connection
        }
        return nil
    }

    // MARK: Closing

    /// Closes every connection and stops reconnecting; with `goodbye`, first tells the daemon the app is done,
    /// which ends its sessions at once (SEMANTICS L3) instead of leaving them to linger.
    func close(goodbye: Bool) async throws {
        guard !closedByApp else { return }
        var goodbyeError: (any Error)?
        if goodbye {
            do {
                try await call(AppMethod.goodbye.name)
            } catch {
                goodbyeError = error
            }
        }
        closedByApp = true
        if failure == nil { failure = .closed }
        following?.cancel()
        following = nil
        reconnecting?.cancel()
        control?.close()
        control = nil
        for connection in streamConnections.values { connection.close() }
        streamConnections.removeAll()
        for (connection, _) in idleConnections { connection.close() }
        idleConnections.removeAll()
        for id in liveSessions { endedSessions[id] = .ended }
        liveSessions.removeAll()
        if let goodbyeError { throw goodbyeError }
    }
}
