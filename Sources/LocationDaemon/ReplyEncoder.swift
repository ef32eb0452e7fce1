import JSON
import LocationCore
import LocationProtocol
import Varlink

/// The core's replies and stream messages as the frames PROTOCOL.md describes, and `Admin.Status`'s
/// `DaemonStatus`: the wire half of carrying out the core's actions.
struct ReplyEncoder {
    let clock: DaemonClock
    let facts: DaemonFacts

    /// A reply's frame. The two every churning client gets are not built as objects: `InvalidateSession`'s
    /// empty reply is encoded once and shared, and a session is written straight into its frame.
    /// - Parameter status: what `Admin.Status` reports beside the core, asked for only by a status reply.
    func encode(_ reply: Reply, status: (CoreStatus) -> JSONValue) -> VarlinkEncodedReply {
        let parameters: JSONObject
        switch reply {
        case .empty:
            return .empty
        case .session(let session):
            return session.replyFrame
        case .hello(let authorization, let lingering):
            parameters = ["authorization": authorization.json, "lingeringSessions": .array(lingering.map(\.json))]
        case .authorization(let authorization):
            parameters = ["authorization": authorization.json]
        case .sessions(let sessions):
            parameters = ["sessions": .array(sessions.map(\.json))]
        case .apps(let apps):
            parameters = ["apps": .array(apps.map(\.json))]
        case .status(let core):
            parameters = ["status": status(core)]
        case .forgotten(let count):
            parameters = ["forgotten": .int(Int64(count))]
        }
        return VarlinkEncodedReply(VarlinkReply(parameters: parameters))
    }

    /// A stream message's frame. A state change reaches every stream that sees it with the same bytes: a
    /// message that is the same for every stream is encoded once per batch, kept in `shared`, and the frame
    /// shared (10,000 diagnostics after a switch, one encoding).
    /// - Parameter monitor: the name of the `MonitorEvents` stream the message goes to.
    func encode(
        _ message: StreamMessage,
        sharing shared: inout [StreamMessage: VarlinkEncodedReply],
        monitor: @autoclosure () -> String
    ) -> VarlinkEncodedReply {
        guard message.isSameForEveryStream else { return encode(message, monitor: monitor()) }
        if let frame = shared[message] { return frame }
        let frame = encode(message, monitor: monitor())
        shared[message] = frame
        return frame
    }

    private func encode(_ message: StreamMessage, monitor: @autoclosure () -> String) -> VarlinkEncodedReply {
        if case .event(let event) = message { return event.frame(timestamp: clock.unixTime(of: event.at)) }
        if case .decided(let session) = message { return session.replyFrame(continues: true) }
        return VarlinkEncodedReply(
            VarlinkReply(parameters: parameters(of: message, monitor: monitor()), continues: true)
        )
    }

    /// A stream message's parameters: those of a `continues` reply, or of the final reply that ends a stream.
    /// - Parameter monitor: the name of the `MonitorEvents` stream the message goes to.
    func parameters(of message: StreamMessage, monitor: @autoclosure () -> String) -> JSONObject {
        switch message {
        case .authorization(let authorization):
            return ["authorization": authorization.json]
        case .diagnostic(let mask, let ended):
            return ["diagnostic": mask.json, "ended": .bool(ended)]
        case .update(let mask, let location):
            return [
                "update": WireUpdate(location: location?.wire, diagnostic: WireDiagnostic(mask: Int(mask.rawValue)))
                    .json
            ]
        case .monitor(let mask):
            let event = WireMonitorEvent(
                monitor: monitor(),
                identifier: "",
                state: "unknown",
                date: clock.unixNow(),
                diagnostic: WireDiagnostic(mask: Int(mask.rawValue))
            )
            return ["event": event.json]
        case .monitorCondition(let event):
            return ["event": event.json(now: clock.unixNow())]
        case .prompt(let prompt):
            return ["prompt": prompt.json(clock: clock)]
        case .withdrawn(let id):
            return ["withdrawn": .string(id.description)]
        case .agentCounted:
            return [:]
        case .event(let event):
            return ["event": event.json(timestamp: clock.unixTime(of: event.at))]
        case .decided(let session):
            return ["session": session.json]
        }
    }

    /// `Admin.Status`'s `DaemonStatus`, in IDL order: the daemon's facts, the core's counts, and what the
    /// provider and the store report.
    /// - Parameters:
    ///   - provider: the `ProviderStatus`, ``ProviderSupervisor/status(running:hasFix:lastFix:)``.
    ///   - providers: every provider's, ``ProviderSupervisor/statuses(running:)`` (U16).
    ///   - lastFixFrom: the name of the provider that supplied the last fix, if one has.
    ///   - storeHealthy: whether the last commit succeeded (R7).
    ///   - calls: the calls the server has run since it started (F19).
    func daemonStatus(
        _ status: CoreStatus,
        provider: WireProviderStatus,
        providers: [WireProviderStatus],
        lastFixFrom: String?,
        storeHealthy: Bool,
        calls: UInt64
    ) -> JSONValue {
        // H4: where the machine is, is no business of a caller that may not administer: its apps learn it through
        // their own grants.
        let own = status.locationServicesEnabledForUser
        return WireDaemonStatus(
            version: facts.version,
            pid: Int(facts.pid),
            uptimeSeconds: clock.now().since(facts.startedAt).seconds,
            locationServicesEnabled: status.locationServicesEnabled,
            provider: own == nil ? provider : provider.withoutPlace,
            storeHealthy: storeHealthy,
            counts: (
                status.apps, status.clients, status.sessions, status.lingeringSessions, status.pendingPrompts,
                status.agents
            ),
            calls: Int(clamping: calls),
            appsUsingLocation: status.appsUsingLocation,
            appsUsingLocationInBackground: status.appsUsingLocationInBackground,
            providers: own == nil ? providers : providers.map(\.withoutPlace),
            lastFixFrom: lastFixFrom,
            administrator: own == nil,
            locationServicesEnabledForUser: own,
            desktops: status.desktops.isEmpty ? nil : status.desktops.map(Self.desktop)
        ).json
    }

    /// A `DesktopStatus` (L13).
    private static func desktop(_ view: DesktopView) -> WireDesktopStatus {
        WireDesktopStatus(
            desktop: view.desktop,
            user: view.user,
            reading: view.reading,
            locked: view.locked,
            failure: view.failure
        )
    }
}

extension StreamMessage {
    /// Whether the message's text depends on nothing but the message: no stream name, no clock.
    fileprivate var isSameForEveryStream: Bool {
        switch self {
        case .authorization, .diagnostic, .update, .agentCounted: true
        case .monitor, .monitorCondition, .prompt, .withdrawn, .event, .decided: false
        }
    }
}
