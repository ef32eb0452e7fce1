import JSON
import LocationCore
import LocationProtocol
import LocationProviders
import NIOCore
import NIOPosix
import Varlink

/// The `network` provider: a client of `locd-network`'s `io.locd.NetworkLocation` on a Unix socket (U3, U13).
///
/// locd has no network; `locd-network` asks a geolocation service by the access points in view while a `Watch`
/// call is open, and only then. On connecting the provider calls `Watch(settings)` with `more`: `started`
/// makes it running, each `position` is a fix (its accuracy the horizontal accuracy; no altitude, speed or
/// course), each `lost` a loss of fix. When the socket is missing, refuses, or closes, the provider reports
/// the fix lost (D9) and tries again after a pause that doubles from 0.25 s to 8 s, back to 0.25 s once
/// `locd-network` has answered `started`. `InvalidSettings` fails it until the configuration changes. Stopping
/// closes the connection, which ends the `Watch`, so `locd-network` stops asking.
package final class NetworkLocationProvider: LocationProvider, ProviderConnectionOwner {
    package let kind = "network"
    package private(set) var state = ProviderState.stopped
    /// `locd-network`'s socket.
    package let socketPath: String
    package let settings: NetworkLocationSettings
    private let eventLoop: EventLoop
    private let connection: ProviderConnection
    private var handler: ((ProviderUpdate) -> Void)?
    private var hasFix = false

    /// The method the provider calls.
    package static let watchMethod = NetworkLocationMethod.watch.name
    /// The error `locd-network` answers settings it cannot use with.
    package static let invalidSettingsError = WireErrorName.invalidSettings.name
    /// The largest reply frame read: a reply is one position, a few hundred bytes.
    static let maximumReplyBytes = 64 * 1024

    /// - Parameters:
    ///   - socketPath: the `[[provider]]` key `socket`.
    ///   - settings: the table's other keys, sent with `Watch`.
    ///   - backoff: the pauses between connection attempts.
    package init(
        socketPath: String,
        settings: NetworkLocationSettings,
        eventLoop: EventLoop,
        backoff: ReconnectBackoff = ReconnectBackoff()
    ) {
        self.socketPath = socketPath
        self.settings = settings
        self.eventLoop = eventLoop
        self.connection = ProviderConnection(eventLoop: eventLoop, backoff: backoff)
        connection.owner = self
    }

    package var target: String { "locd-network at \(socketPath)" }

    package var source: String { "locd-network at \(socketPath), asking \(settings.url)" }

    package func start(_ handler: @escaping (ProviderUpdate) -> Void) {
        eventLoop.preconditionInEventLoop()
        guard state == .stopped else { return }
        self.handler = handler
        connection.start()
        state = .connecting
    }

    package func stop() {
        eventLoop.preconditionInEventLoop()
        connection.stop()
        handler = nil
        state = .stopped
        hasFix = false
    }

    // MARK: Connecting

    /// Opens the connection of `attempt` to locd-network.
    package func open(_ attempt: Int) -> EventLoopFuture<Channel> {
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(VarlinkFrameDecoder(maximumFrameLength: Self.maximumReplyBytes))
                    )
                    try channel.pipeline.syncOperations.addHandler(
                        NetworkLocationClientHandler(provider: bound.value, generation: attempt)
                    )
                }
            }
        return bootstrap.connect(unixDomainSocketPath: socketPath)
    }

    package func scheduleRetry(after reason: String) {
        loseFix(reason)
        let delay = connection.reconnectLater()
        change(to: .retrying, detail: "\(reason); retrying in \(delay) s")
    }

    private func fail(_ reason: String) {
        connection.stop()
        loseFix(reason)
        change(to: .failed, detail: reason)
    }

    private func loseFix(_ reason: String) {
        guard hasFix else { return }
        hasFix = false
        handler?(.fixLost(reason: reason))
    }

    package func change(to state: ProviderState, detail: String?) {
        self.state = state
        handler?(.state(state, detail: detail))
    }

    // MARK: From the connection

    /// The connection of `attempt` is open: call `Watch`.
    func connected(_ channel: Channel, attempt: Int) {
        guard connection.isCurrent(attempt) else { return }
        let call = VarlinkCall(method: Self.watchMethod, parameters: ["settings": settings.json], more: true)
        let text = call.serialized
        var buffer = channel.allocator.buffer(capacity: text.utf8.count + 1)
        buffer.writeString(text)
        buffer.writeInteger(UInt8(0))
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// A reply on the connection of `attempt`.
    func received(_ reply: VarlinkReply, attempt: Int) {
        guard connection.isCurrent(attempt) else { return }
        if let error = reply.error {
            return refused(error, parameters: reply.parameters)
        }
        guard reply.continues else {
            return scheduleRetry(after: "locd-network at \(socketPath) ended the Watch call")
        }
        switch reply.parameters["event"]?.stringValue.flatMap(WireNetworkEvent.init(rawValue:)) {
        case .started?:
            connection.resetBackoff()
            change(to: .running, detail: "watching locd-network at \(socketPath)")
        case .position?:
            guard let fix = Self.fix(reply.parameters["position"]) else {
                handler?(.warning("locd-network at \(socketPath) sent a position that is not one; skipped"))
                return
            }
            if state != .running { change(to: .running, detail: "watching locd-network at \(socketPath)") }
            hasFix = true
            handler?(.fix(fix))
        case .lost?:
            let reason = reply.parameters["reason"]?.stringValue ?? "no reason given"
            hasFix = false
            handler?(.fixLost(reason: "locd-network has no position: \(reason)"))
        case nil:
            let event = reply.parameters["event"].map { $0.serialized } ?? "none"
            handler?(.warning("locd-network at \(socketPath) sent an unknown event \(event); skipped"))
        }
    }

    /// An error reply ends the call: settings refused fail the provider; anything else is retried.
    private func refused(_ error: String, parameters: JSONObject) {
        guard error == Self.invalidSettingsError else {
            return scheduleRetry(after: "locd-network at \(socketPath) answered \(error)")
        }
        let field = parameters["field"]?.stringValue ?? "?"
        let reason = parameters["reason"]?.stringValue ?? "no reason given"
        fail("locd-network refused the settings: \(field): \(reason); change the [[provider]] table and reload")
    }

    /// The connection of `attempt` closed.
    func disconnected(attempt: Int, error: Error?) {
        guard connection.isCurrent(attempt) else { return }
        let reason = error.map { "lost the connection to locd-network at \(socketPath): \($0)" }
        scheduleRetry(after: reason ?? "locd-network at \(socketPath) closed the connection")
    }

    /// A `Position` as a fix: accuracy is the horizontal accuracy; nothing else is known.
    static func fix(_ position: JSONValue?) -> Fix? {
        guard let position = WirePosition(json: position) else { return nil }
        let fix = Fix(
            latitude: position.latitude,
            longitude: position.longitude,
            horizontalAccuracy: position.accuracy,
            timestamp: position.timestamp
        )
        return fix.isOnEarth ? fix : nil
    }
}
