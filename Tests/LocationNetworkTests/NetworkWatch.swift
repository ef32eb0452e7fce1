import Foundation
import JSON
import LocationTestSupport
import NIOPosix
import Synchronization
import Varlink

/// One `io.locd.NetworkLocation.Watch` on its own connection, its replies recorded as they come.
final class NetworkWatch: Sendable {
    private let client: VarlinkAsyncClient
    private let recorder = Recorder()
    private let reading: Task<Void, Never>

    /// The Watches' own event loop: on the process-wide one, other suites' floods of their own clients (F4, F17)
    /// could hold back the Watch call past locd-network's idle-timeout (F13), which then closes the connection.
    private static let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// The call goes out on the loop as the connection opens, not once this task gets a thread again.
    init(socket: String, settings: JSONObject) async throws {
        let (client, replies) = try await VarlinkAsyncClient.connect(
            path: socket,
            streaming: "io.locd.NetworkLocation.Watch",
            ["settings": .object(settings)],
            group: Self.loop
        )
        self.client = client
        let recorder = self.recorder
        reading = Task {
            do {
                for try await reply in replies { recorder.state.withLock { $0.events.append(reply) } }
                recorder.state.withLock { $0.ended = true }
            } catch {
                recorder.state.withLock {
                    $0.end = error
                    $0.ended = true
                }
            }
        }
    }

    deinit { client.close() }

    var events: [JSONObject] { recorder.state.withLock { $0.events } }

    /// How the Watch ended so far, for failure messages.
    var ending: String {
        recorder.state.withLock { state in
            state.ended ? "ended: \(state.end.map { "\($0)" } ?? "without error")" : "still open"
        }
    }

    /// Closes the connection, which ends the Watch.
    func close() { client.close() }

    /// Waits until the Watch ends, and returns the Varlink error it ended with, if any.
    func error(timeout: Double = 20) async throws -> VarlinkError? {
        _ = try await eventually(timeout: timeout, every: 0.02) { recorder.state.withLock { $0.ended } }
        return recorder.state.withLock { $0.end } as? VarlinkError
    }

    /// Waits for an event after the first `skipping` for which `matches` holds, and returns it.
    func next(
        after skipping: Int = 0,
        timeout: Double = 20,
        _ matches: @escaping (JSONObject) -> Bool
    ) async throws -> JSONObject? {
        var found: JSONObject?
        _ = try await eventually(timeout: timeout, every: 0.02) {
            found = events.dropFirst(skipping).first(where: matches)
            return found != nil || recorder.state.withLock { $0.ended }
        }
        return found
    }

    /// The next position after `skipping` events.
    func position(after skipping: Int = 0, timeout: Double = 20) async throws -> JSONObject? {
        try await next(after: skipping, timeout: timeout) { $0["event"] == "position" }?["position"]?.objectValue
    }

    /// The next lost after `skipping` events: its reason.
    func lost(after skipping: Int = 0, timeout: Double = 20) async throws -> String? {
        try await next(after: skipping, timeout: timeout) { $0["event"] == "lost" }?["reason"]?.stringValue
    }
}

/// What a Watch received, written by its reading task and read by the test.
private final class Recorder: Sendable {
    let state = Mutex<(events: [JSONObject], end: (any Error)?, ended: Bool)>(([], nil, false))
}
