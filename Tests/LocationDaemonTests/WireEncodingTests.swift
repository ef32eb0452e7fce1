import JSON
import LocationTestSupport
import Testing
import Varlink

@testable import LocationCore
@testable import LocationDaemon

/// The wire shapes of PROTOCOL.md's `Location` and `MonitorEvent`, pinned field for field.
@Suite struct WireEncodingTests {
    @Test("U1: a location is PROTOCOL's Location field for field, with absent optionals left out")
    func location() {
        let precise = Fix(
            latitude: 35.681236,
            longitude: 139.767125,
            altitude: 40.5,
            horizontalAccuracy: 4.8,
            verticalAccuracy: 3,
            speed: 1.25,
            course: 270,
            timestamp: 1_700_000_000.5
        )
        #expect(
            precise.json
                == .object([
                    "latitude": .double(35.681236), "longitude": .double(139.767125), "altitude": .double(40.5),
                    "horizontalAccuracy": .double(4.8), "verticalAccuracy": .double(3), "speed": .double(1.25),
                    "course": .double(270), "timestamp": .double(1_700_000_000.5),
                ])
        )
        var quantiser = LocationQuantiser()
        let reduced = quantiser.quantise(precise)
        #expect(
            reduced.json
                == .object([
                    "latitude": .double(reduced.latitude), "longitude": .double(reduced.longitude),
                    "horizontalAccuracy": .double(5000), "timestamp": .double(1_700_000_000.5),
                ])
        )
    }

    @Test("U4: a monitor event carries its state, and the date of the fix that set it or else now")
    func monitorEvent() {
        var event = MonitorEventView(
            monitor: "places",
            identifier: "home",
            state: .unknown,
            diagnostic: [.conditionLimitExceeded]
        )
        let diagnostic: JSONValue = .object([
            "flags": .array([.string("conditionLimitExceeded")]), "mask": .int(256),
        ])
        #expect(
            event.json(now: 1_700_000_123)
                == .object([
                    "monitor": .string("places"), "identifier": .string("home"), "state": .string("unknown"),
                    "date": .double(1_700_000_123), "diagnostic": diagnostic,
                ])
        )
        event.state = .satisfied
        event.date = 1_700_000_000
        #expect(event.json(now: 1_700_000_123)["state"] == .string("satisfied"))
        #expect(event.json(now: 1_700_000_123)["date"] == .double(1_700_000_000))
    }

    @Test("PROTOCOL: an Admin.Watch event written straight into its frame is the text of its Event object")
    func watchEventFrame() {
        var random = SplitMix64(seed: 1_109)
        for kind in AdminEventKind.allCases {
            for _ in 0..<200 {
                let event = AdminEvent(
                    kind: kind,
                    appID: Bool.random(using: &random) ? JSONSamples.string(&random) : nil,
                    sessionID: Bool.random(using: &random)
                        ? SessionID(epoch: UInt32.random(in: 0...UInt32.max, using: &random), number: random.next())
                        : nil,
                    detail: JSONSamples.string(&random),
                    at: Instant(nanoseconds: Int64.random(in: 0...Int64.max, using: &random)),
                    user: nil
                )
                let timestamp = Double(Int64.random(in: 0...2_000_000_000_000, using: &random)) / 1000
                let generic = VarlinkEncodedReply(
                    VarlinkReply(parameters: ["event": event.json(timestamp: timestamp)], continues: true)
                )
                let direct = event.frame(timestamp: timestamp)
                #expect(direct.continues)
                #expect(
                    String(decoding: direct.frame.readableBytesView, as: UTF8.self)
                        == String(decoding: generic.frame.readableBytesView, as: UTF8.self)
                )
            }
        }
    }

    @Test("PROTOCOL: a session reply written straight into its frame is the text of its Session object")
    func sessionReplyFrame() {
        var random = SplitMix64(seed: 2_024)
        for _ in 0..<2_000 {
            let session = SessionView(
                id: SessionID(epoch: UInt32.random(in: 0...UInt32.max, using: &random), number: random.next()),
                appID: JSONSamples.string(&random),
                kind: SessionKind.allCases.randomElement(using: &random)!,
                requirement: Requirement.allCases.randomElement(using: &random)!,
                purposeKey: Bool.random(using: &random) ? JSONSamples.string(&random) : nil,
                state: SessionState.allCases.randomElement(using: &random)!,
                diagnostic: DiagnosticMask(rawValue: UInt16.random(in: 0..<(1 << 14), using: &random)),
                deadline: Bool.random(using: &random)
                    ? Instant(nanoseconds: Int64.random(in: 0...Int64.max, using: &random)) : nil,
                remaining: Bool.random(using: &random)
                    ? Span(nanoseconds: Int64.random(in: -1_000_000_000...1 << 50, using: &random)) : nil,
                user: nil
            )
            let generic = VarlinkEncodedReply(VarlinkReply(parameters: ["session": session.json]))
            let direct = session.replyFrame
            #expect(!direct.continues)
            #expect(
                String(decoding: direct.frame.readableBytesView, as: UTF8.self)
                    == String(decoding: generic.frame.readableBytesView, as: UTF8.self)
            )
            // The decision sent ahead of it (R11): the same session, continuing.
            let early = session.replyFrame(continues: true)
            let genericEarly = VarlinkEncodedReply(VarlinkReply(parameters: ["session": session.json], continues: true))
            #expect(early.continues)
            #expect(early.frame == genericEarly.frame)
        }
    }

    @Test("PROTOCOL: the shared empty reply is a final reply with empty parameters")
    func emptyReply() {
        let generic = VarlinkEncodedReply(VarlinkReply(parameters: [:]))
        #expect(!VarlinkEncodedReply.empty.continues)
        #expect(VarlinkEncodedReply.empty.frame == generic.frame)
        #expect(String(decoding: generic.frame.readableBytesView, as: UTF8.self) == "{\"parameters\":{}}\0")
    }
}
