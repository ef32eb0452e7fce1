import JSON
import LocationProtocol
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Varlink

/// A stand-in for `locd-network`: `io.locd.NetworkLocation` served by the project's own ``VarlinkServer`` on a
/// Unix socket, whose replies the test scripts. Each `Watch` is answered `started` (or `InvalidSettings` when
/// ``refuseWith(field:reason:)`` says so) and then gets whatever ``send(latitude:longitude:accuracy:)`` and
/// ``sendLost(_:)`` send, until it closes. ``stop()`` takes the service away (the socket file stays, so
/// connecting is refused) and ``start()`` brings it back on the same path. Unchecked Sendable: the server and its
/// connections are touched on the fake's loop only, the rest under the lock.
package final class FakeNetworkLocation: @unchecked Sendable {
    package let path: String
    private let eventLoop: EventLoop
    private let state: NIOLockedValueBox<State>

    private struct State {
        var server: VarlinkServer?
        var delegate: Delegate?
        var watches: [(connection: VarlinkConnection, serial: UInt64)] = []
        var settings: [JSONObject] = []
        var closed = 0
        var refusal: (field: String, reason: String)?
        var standing: JSONObject?
    }

    /// - Parameter path: the socket to serve on; nothing is served until ``start()``.
    package init(path: String) {
        self.path = path
        eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        state = NIOLockedValueBox(State())
    }

    /// Serves on ``path``, replacing a stale socket file.
    package func start() async throws {
        try await eventLoop.flatSubmit { [self] in
            let delegate = Delegate(owner: self)
            let server = VarlinkServer(
                info: VarlinkServiceInfo(vendor: "locd tests", product: "fake locd-network", version: "0", url: ""),
                interfaces: [("io.locd.NetworkLocation", LocationInterfaces.networkLocation)],
                limits: VarlinkLimits(idleTimeout: .seconds(60)),
                limitExceededError: "io.locd.NetworkLocation.InvalidSettings",
                eventLoop: eventLoop,
                delegate: delegate,
                logger: { _ in }
            )
            state.withLockedValue {
                $0.server = server
                $0.delegate = delegate
            }
            return server.bind(path: path)
        }.get()
    }

    /// Stops listening and closes every connection, as a `locd-network` that stopped would.
    package func stop() async throws {
        try await eventLoop.submit { [self] in
            let server = state.withLockedValue { state in
                defer {
                    state.server = nil
                    state.watches = []
                }
                return state.server
            }
            server?.close()
        }.get()
    }

    /// Answers the next `Watch` calls with `InvalidSettings`, or with `started` again when `field` is `nil`.
    package func refuseWith(field: String?, reason: String = "") {
        state.withLockedValue { $0.refusal = field.map { ($0, reason) } }
    }

    /// Answers each `Watch` from now on with this position right after `started`, as a service that knows where
    /// the machine is would.
    package func answerEachWatch(latitude: Double, longitude: Double, accuracy: Double) {
        let position = Self.position(
            latitude: latitude,
            longitude: longitude,
            accuracy: accuracy,
            timestamp: 1_700_000_000
        )
        state.withLockedValue { $0.standing = ["event": .string("position"), "position": .object(position)] }
    }

    /// The `Watch` calls open now.
    package var openWatches: Int { state.withLockedValue { $0.watches.count } }
    /// Connections that have closed, over the server's life.
    package var closedConnections: Int { state.withLockedValue { $0.closed } }
    /// The `settings` of every `Watch` received, in order.
    package var receivedSettings: [JSONObject] { state.withLockedValue { $0.settings } }

    /// Sends a `position` to every open `Watch`.
    package func send(
        latitude: Double,
        longitude: Double,
        accuracy: Double,
        timestamp: Double = 1_700_000_000
    )
        async throws
    {
        let position = Self.position(latitude: latitude, longitude: longitude, accuracy: accuracy, timestamp: timestamp)
        try await broadcast(["event": .string("position"), "position": .object(position)])
    }

    private static func position(latitude: Double, longitude: Double, accuracy: Double, timestamp: Double) -> JSONObject
    {
        [
            "latitude": .double(latitude), "longitude": .double(longitude), "accuracy": .double(accuracy),
            "timestamp": .double(timestamp), "basis": .string("wifi"), "accessPoints": .int(3),
        ]
    }

    /// Sends `lost` with `reason` to every open `Watch`.
    package func sendLost(_ reason: String) async throws {
        try await broadcast(["event": .string("lost"), "reason": .string(reason)])
    }

    private func broadcast(_ parameters: JSONObject) async throws {
        try await eventLoop.submit { [self] in
            for watch in state.withLockedValue({ $0.watches }) {
                watch.connection.reply(watch.serial, parameters, continues: true)
            }
        }.get()
    }

    fileprivate func received(_ call: VarlinkCall, serial: UInt64, on connection: VarlinkConnection) {
        guard call.memberName == "Watch", call.more else {
            return connection.fail(serial, VarlinkError(name: "org.varlink.service.MethodNotFound"))
        }
        let refusal = state.withLockedValue { state in
            state.settings.append(call.parameters["settings"]?.objectValue ?? [:])
            return state.refusal
        }
        if let refusal {
            let parameters: JSONObject = ["field": .string(refusal.field), "reason": .string(refusal.reason)]
            return connection.fail(
                serial,
                VarlinkError(name: "io.locd.NetworkLocation.InvalidSettings", parameters: parameters)
            )
        }
        let standing = state.withLockedValue { state in
            state.watches.append((connection, serial))
            return state.standing
        }
        connection.reply(serial, ["event": .string("started")], continues: true)
        if let standing { connection.reply(serial, standing, continues: true) }
    }

    fileprivate func closed(_ connection: VarlinkConnection) {
        state.withLockedValue { state in
            state.closed += 1
            state.watches.removeAll { $0.connection === connection }
        }
    }

    /// The server's delegate, on the fake's loop.
    private final class Delegate: VarlinkServerDelegate {
        unowned let owner: FakeNetworkLocation

        init(owner: FakeNetworkLocation) {
            self.owner = owner
        }

        func opened(_ connection: VarlinkConnection) {}

        func received(_ call: VarlinkCall, serial: UInt64, on connection: VarlinkConnection) {
            owner.received(call, serial: serial, on: connection)
        }

        func closed(_ connection: VarlinkConnection) {
            owner.closed(connection)
        }
    }
}
