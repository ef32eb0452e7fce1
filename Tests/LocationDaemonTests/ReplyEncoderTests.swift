import JSON
import LocationProtocol
import NIOCore
import Testing
import Varlink

@testable import LocationCore
@testable import LocationDaemon

/// The frames the daemon writes for the core's replies and stream messages, byte for byte against PROTOCOL.md:
/// `{"parameters": …, "continues"?: true}` and a NUL, the parameters in IDL order.
@Suite struct ReplyEncoderTests {
    private let encoder = ReplyEncoder(
        clock: DaemonClock(),
        facts: DaemonFacts(version: "9.9.9", pid: 4242, startedAt: DaemonClock().now())
    )

    private func text(_ reply: VarlinkEncodedReply) -> String {
        String(buffer: reply.frame)
    }

    private func noStatus(_ status: CoreStatus) -> JSONValue {
        Issue.record("only a status reply asks for the daemon's status")
        return .null
    }

    @Test("R12: GetAuthorization's reply is the IDL's Authorization, field for field, as one final frame")
    func authorizationReply() {
        let view = AuthorizationView(AuthorizationRecord(status: .authorizedWhenInUse, accuracy: .reducedAccuracy))
        let frame = encoder.encode(.authorization(view), status: noStatus)
        #expect(!frame.continues)
        #expect(
            text(frame)
                == #"{"parameters":{"authorization":{"status":"authorizedWhenInUse","accuracy":"reducedAccuracy","#
                + #""provisional":false,"oneTime":false,"temporaryFullAccuracy":false,"settingsLabel":"whileUsing"}}}"#
                + "\0"
        )
        #expect(text(encoder.encode(.empty, status: noStatus)) == #"{"parameters":{}}"# + "\0")
    }

    @Test("D11: a diagnostics stream message continues, carries the mask's flags in bit order, and `ended`")
    func diagnosticStreamMessage() {
        var shared: [StreamMessage: VarlinkEncodedReply] = [:]
        let message = StreamMessage.diagnostic([.insufficientlyInUse, .stationary], ended: false)
        let frame = encoder.encode(message, sharing: &shared, monitor: "")
        #expect(frame.continues)
        #expect(
            text(frame)
                == #"{"parameters":{"diagnostic":{"flags":["stationary","insufficientlyInUse"],"mask":24},"#
                + #""ended":false},"continues":true}"# + "\0"
        )
        // The final reply that ends the stream carries the same parameters, with no `continues`.
        let final = encoder.parameters(of: .diagnostic([.stationary], ended: true), monitor: "")
        #expect(
            final == [
                "diagnostic": .object(["flags": .array([.string("stationary")]), "mask": .int(8)]),
                "ended": .bool(true),
            ]
        )
    }

    @Test("A4: a state change reaches every stream that sees it with the same frame, encoded once per batch")
    func sharedFrames() {
        var shared: [StreamMessage: VarlinkEncodedReply] = [:]
        let view = AuthorizationView(AuthorizationRecord(status: .denied))
        let first = encoder.encode(.authorization(view), sharing: &shared, monitor: "")
        let second = encoder.encode(.authorization(view), sharing: &shared, monitor: "")
        #expect(shared.count == 1)
        #expect(first.frame == second.frame && first.continues)
        #expect(text(first).hasPrefix(#"{"parameters":{"authorization":{"status":"denied","#))
    }

    @Test("U4: a monitor's diagnostic is an event named for its own stream, never shared between streams")
    func monitorMessagesAreNamedPerStream() throws {
        var shared: [StreamMessage: VarlinkEncodedReply] = [:]
        let message = StreamMessage.monitor([.persistenceUnavailable])
        let places = text(encoder.encode(message, sharing: &shared, monitor: "places"))
        let work = text(encoder.encode(message, sharing: &shared, monitor: "work"))
        #expect(shared.isEmpty)
        #expect(places.hasPrefix(#"{"parameters":{"event":{"monitor":"places","identifier":"","state":"unknown","#))
        #expect(work.hasPrefix(#"{"parameters":{"event":{"monitor":"work","#))
        #expect(
            places.hasSuffix(
                #""diagnostic":{"flags":["persistenceUnavailable"],"mask":512}}},"continues":true}"# + "\0"
            )
        )
    }

    @Test(
        "R7: Admin.Status's DaemonStatus carries the daemon's facts, the core's counts and storeHealthy, in IDL order"
    )
    func daemonStatus() throws {
        let core = CoreStatus(
            locationServicesEnabled: true,
            apps: 3,
            clients: 2,
            sessions: 5,
            lingeringSessions: 1,
            pendingPrompts: 0,
            agents: 1,
            appsUsingLocation: ["com.ex.maps"],
            appsUsingLocationInBackground: []
        )
        let provider = WireProviderStatus(name: "static", running: false, hasFix: false, kind: "static")
        let providers = [provider]
        func encode(_ core: CoreStatus) -> JSONValue {
            encoder.daemonStatus(
                core,
                provider: provider,
                providers: providers,
                lastFixFrom: "static",
                storeHealthy: false,
                calls: 77
            )
        }
        let frame = encoder.encode(.status(core)) { encode($0) }
        let status = try #require(encode(core).objectValue)
        #expect(
            status.keys == [
                "version", "pid", "uptimeSeconds", "locationServicesEnabled", "provider", "storeHealthy", "apps",
                "clients", "sessions", "lingeringSessions", "pendingPrompts", "agents", "calls", "appsUsingLocation",
                "appsUsingLocationInBackground", "providers", "lastFixFrom", "administrator",
            ]
        )
        #expect(
            status["version"] == .string("9.9.9") && status["pid"] == .int(4242)
                && status["storeHealthy"] == .bool(false)
        )
        #expect(status["provider"] == provider.json && status["sessions"] == .int(5) && status["calls"] == .int(77))
        #expect(status["appsUsingLocation"] == .array([.string("com.ex.maps")]))
        #expect(status["providers"] == .array([provider.json]) && status["lastFixFrom"] == .string("static"))
        #expect(text(frame).hasPrefix(#"{"parameters":{"status":{"version":"9.9.9","pid":4242,"uptimeSeconds":"#))
        #expect(
            text(frame).contains(
                #""provider":{"name":"static","running":false,"hasFix":false,"kind":"static"},"storeHealthy":false,"apps":3,"#
            )
        )
    }
}
