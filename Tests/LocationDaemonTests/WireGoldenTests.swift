import JSON
import LocationProtocol
import LocationTestSupport
import Testing
import Varlink

@testable import LocationCore
@testable import LocationDaemon

/// locd's own encoders, the pre-encoded frames included, write the golden messages of LocationProtocolTests byte for
/// byte from the core's views of the same values: what the client, locctl and locd-agent decode is what locd sends.
@Suite("locd's encoders against the golden messages")
struct WireGoldenTests {
    /// The golden messages' text, one string each.
    private func golden(_ kind: String) throws -> [String] {
        try WireGolden.messages(kind).map(\.serialized)
    }

    /// The view with every field as given; the core makes such views from records.
    private func authorizationView(
        status: AuthorizationStatus,
        accuracy: AccuracyAuthorization,
        provisional: Bool,
        oneTime: Bool,
        temporaryFullAccuracy: Bool,
        settingsLabel: SettingsLabel
    ) -> AuthorizationView {
        var view = AuthorizationView(AuthorizationRecord(status: status))
        (view.status, view.accuracy, view.provisional) = (status, accuracy, provisional)
        (view.oneTime, view.temporaryFullAccuracy, view.settingsLabel) = (oneTime, temporaryFullAccuracy, settingsLabel)
        return view
    }

    @Test("PROTOCOL: AuthorizationView encodes to Authorization.json")
    func authorization() throws {
        let views = [
            authorizationView(
                status: .authorizedWhenInUse,
                accuracy: .fullAccuracy,
                provisional: false,
                oneTime: false,
                temporaryFullAccuracy: false,
                settingsLabel: .whileUsing
            ),
            authorizationView(
                status: .authorizedWhenInUse,
                accuracy: .reducedAccuracy,
                provisional: false,
                oneTime: true,
                temporaryFullAccuracy: true,
                settingsLabel: .askNextTime
            ),
            authorizationView(
                status: .notDetermined,
                accuracy: .fullAccuracy,
                provisional: false,
                oneTime: false,
                temporaryFullAccuracy: false,
                settingsLabel: .askNextTime
            ),
            authorizationView(
                status: .authorizedAlways,
                accuracy: .fullAccuracy,
                provisional: true,
                oneTime: false,
                temporaryFullAccuracy: false,
                settingsLabel: .always
            ),
        ]
        #expect(views.map(\.json.serialized) == (try golden("Authorization")))
    }

    @Test("PROTOCOL: DiagnosticMask encodes to Diagnostic.json, as a value and written into a frame")
    func diagnostic() throws {
        #expect(DiagnosticMask.names == WireDiagnostic.flagNames)
        let masks: [DiagnosticMask] = [
            [], [.authorizationDenied, .authorizationDeniedGlobally],
            [.insufficientlyInUse, .accuracyLimited], DiagnosticMask(rawValue: (1 << 14) - 1),
        ]
        let expected = try golden("Diagnostic")
        #expect(masks.map(\.json.serialized) == expected)
        let written = masks.map { mask in
            var bytes: [UInt8] = []
            mask.write(into: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(written == expected)
    }

    static let sessions = [
        SessionView(
            id: SessionID("s1-2")!,
            appID: "com.ex.maps",
            kind: .explicit,
            requirement: .whenInUse,
            purposeKey: nil,
            state: .active,
            diagnostic: [],
            deadline: nil,
            remaining: nil,
            user: nil
        ),
        SessionView(
            id: SessionID("s7-40")!,
            appID: "com.ex.run",
            kind: .implicit,
            requirement: .always,
            purposeKey: "Navigation",
            state: .lingering,
            diagnostic: [.insufficientlyInUse],
            deadline: Instant(nanoseconds: 98_765_000_000_000),
            remaining: Span(nanoseconds: 12_500_000_000),
            user: 1000
        ),
        SessionView(
            id: SessionID("s3-9")!,
            appID: "org.example.\"quoted\"\\app",
            kind: .backgroundActivity,
            requirement: .noAuthorization,
            purposeKey: nil,
            state: .limited,
            diagnostic: [.authorizationDenied, .authorizationRequestInProgress],
            deadline: nil,
            remaining: nil,
            user: 0
        ),
    ]

    @Test("PROTOCOL: SessionView encodes to Session.json, and its pre-encoded reply frame carries the same text")
    func session() throws {
        let expected = try golden("Session")
        #expect(Self.sessions.map(\.json.serialized) == expected)
        for (view, text) in zip(Self.sessions, expected) {
            let session = try #require(JSONValue.parse(Array(text.utf8)))
            for continues in [false, true] {
                let generic = VarlinkEncodedReply(VarlinkReply(parameters: ["session": session], continues: continues))
                #expect(view.replyFrame(continues: continues).frame == generic.frame, "\(text)")
            }
        }
    }

    @Test("PROTOCOL: PromptView encodes to Prompt.json")
    func prompt() throws {
        let views = [
            (
                PromptView(
                    id: PromptID("p1-1")!,
                    appID: "com.ex.maps",
                    kind: .authorization,
                    usageDescription: "Shows you on the map",
                    purposeKey: nil,
                    options: [.allowWhileUsing, .allowOnce, .deny],
                    defaultAccuracy: .full,
                    accuracyToggle: true,
                    raisedAt: Instant(nanoseconds: 0),
                    user: 0
                ), 1_763_778_188.5
            ),
            (
                PromptView(
                    id: PromptID("p1-3")!,
                    appID: "com.ex.maps",
                    kind: .temporaryFullAccuracy,
                    usageDescription: "Turn-by-turn needs your precise location",
                    purposeKey: "Navigation",
                    options: [.allow, .deny],
                    defaultAccuracy: .reduced,
                    accuracyToggle: false,
                    raisedAt: Instant(nanoseconds: 0),
                    user: 1000
                ), 1_763_778_190
            ),
            (
                PromptView(
                    id: PromptID("p2-7")!,
                    appID: "org.gnome.Maps",
                    kind: .alwaysUpgrade,
                    usageDescription: "Tracks your trips\n(line two)",
                    purposeKey: nil,
                    options: [.keepWhileUsing, .changeToAlways],
                    defaultAccuracy: .full,
                    accuracyToggle: false,
                    raisedAt: Instant(nanoseconds: 0),
                    user: 65534,
                    brokered: true
                ), 1_763_778_191.25
            ),
        ]
        #expect(views.map { $0.0.wire(raisedAt: $0.1).json.serialized } == (try golden("Prompt")))
    }

    @Test("PROTOCOL: a LiveUpdates message is Update.json's, with a full, a sparse and no location")
    func update() throws {
        let encoder = ReplyEncoder(
            clock: DaemonClock(),
            facts: DaemonFacts(version: "9.9.9", pid: 4242, startedAt: DaemonClock().now())
        )
        let messages: [StreamMessage] = [
            .update(
                [],
                location: Fix(
                    latitude: 35.681236,
                    longitude: 139.767125,
                    altitude: 40.5,
                    horizontalAccuracy: 4.8,
                    verticalAccuracy: 3,
                    speed: 1.25,
                    course: 270,
                    timestamp: 1_700_000_000.5
                )
            ),
            .update(
                [.accuracyLimited],
                location: Fix(latitude: 35.68, longitude: 139.77, horizontalAccuracy: 5000, timestamp: 1_700_000_001)
            ),
            .update([.insufficientlyInUse, .locationUnavailable], location: nil),
        ]
        let written = messages.map { encoder.parameters(of: $0, monitor: "")["update"]?.serialized ?? "" }
        #expect(written == (try golden("Update")))
    }

    @Test("PROTOCOL: a condition's MonitorEvent is MonitorEvent.json's, dated by its fix or else now")
    func monitorEvent() throws {
        var home = MonitorEventView(monitor: "places", identifier: "home", state: .satisfied, diagnostic: [])
        home.date = 1_700_000_000
        let work = MonitorEventView(
            monitor: "places",
            identifier: "work",
            state: .unknown,
            diagnostic: [.conditionLimitExceeded]
        )
        let written = [home.json(now: 0), work.json(now: 1_700_000_123.25)].map(\.serialized)
        #expect(written == (try golden("MonitorEvent")))
    }

    @Test("PROTOCOL: AppView encodes to AppEntry.json")
    func appEntry() throws {
        func authorization(
            _ status: AuthorizationStatus,
            _ accuracy: AccuracyAuthorization,
            _ label: SettingsLabel
        )
            -> AuthorizationView
        {
            authorizationView(
                status: status,
                accuracy: accuracy,
                provisional: false,
                oneTime: false,
                temporaryFullAccuracy: false,
                settingsLabel: label
            )
        }
        let views = [
            AppView(
                appID: "com.ex.maps",
                manifest: "/etc/locd/apps.d/com.ex.maps.toml",
                state: .notRunning,
                inUse: false,
                usingLocationInBackground: false,
                authorization: authorization(.notDetermined, .fullAccuracy, .askNextTime),
                clients: 0,
                sessions: 0,
                owner: nil,
                user: nil
            ),
            AppView(
                appID: "org.gnome.Weather",
                manifest: "(unknown-brokered-apps)",
                state: .background,
                inUse: true,
                usingLocationInBackground: true,
                authorization: authorization(.authorizedWhenInUse, .reducedAccuracy, .whileUsing),
                clients: 2,
                sessions: 1,
                owner: .uid(1000),
                user: 1000,
                policy: AppPolicy(setting: .whileUsing, precise: false),
                stateSource: "sway"
            ),
            AppView(
                appID: "com.ex.gone",
                manifest: "(none)",
                state: .terminated,
                inUse: false,
                usingLocationInBackground: false,
                authorization: authorization(.denied, .fullAccuracy, .never),
                clients: 0,
                sessions: 0,
                owner: .unknown,
                user: 65534,
                policy: AppPolicy(setting: nil, precise: nil)
            ),
        ]
        #expect(views.map(\.json.serialized) == (try golden("AppEntry")))
    }

    @Test("PROTOCOL: AdminEvent encodes to Event.json, and its pre-encoded Watch frame carries the same text")
    func event() throws {
        let events = [
            (
                AdminEvent(
                    kind: .sessionCreated,
                    appID: "com.ex.maps",
                    sessionID: SessionID("s1-2"),
                    detail: "explicit whenInUse",
                    at: Instant(nanoseconds: 0),
                    user: 1000
                ), 1_700_000_000.5
            ),
            (
                AdminEvent(
                    kind: .servicesChanged,
                    appID: nil,
                    sessionID: nil,
                    detail: "off",
                    at: Instant(nanoseconds: 0),
                    user: 1000
                ), 1_700_000_001
            ),
            (
                AdminEvent(
                    kind: .promptRaised,
                    appID: "com.ex.\"odd\"",
                    sessionID: nil,
                    detail: "",
                    at: Instant(nanoseconds: 0),
                    user: nil
                ), 1_700_000_002.25
            ),
        ]
        let expected = try golden("Event")
        #expect(events.map { $0.0.json(timestamp: $0.1).serialized } == expected)
        for ((event, timestamp), text) in zip(events, expected) {
            let generic = VarlinkEncodedReply(
                VarlinkReply(parameters: ["event": try #require(JSONValue.parse(Array(text.utf8)))], continues: true)
            )
            #expect(event.frame(timestamp: timestamp).frame == generic.frame, "\(text)")
        }
    }

    @Test("H4: Admin.Status is DaemonStatus.json's: an administrator's, and another caller's without the place")
    func daemonStatus() throws {
        let encoder = ReplyEncoder(
            clock: DaemonClock(),
            facts: DaemonFacts(version: "9.9.9", pid: 4242, startedAt: DaemonClock().now())
        )
        let gpsd = WireProviderStatus(
            name: "gpsd",
            running: true,
            hasFix: true,
            lastFix: 1_700_000_000.5,
            state: "running",
            source: "127.0.0.1:2947",
            lastLatitude: 35.681236,
            lastLongitude: 139.767125,
            kind: "gpsd",
            lastAccuracy: 4.8
        )
        let network = WireProviderStatus(
            name: "network",
            running: true,
            hasFix: false,
            state: "retrying",
            source: "/run/locd/network.sock",
            lastError: "locd-network is not running",
            kind: "network"
        )
        var administrator = CoreStatus(
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
        administrator.desktops = [
            DesktopView(desktop: "sway", user: 1000, reading: true, failure: nil, locked: false),
            DesktopView(desktop: "x11", user: 1001, reading: false, failure: "no X display", locked: true),
        ]
        var other = CoreStatus(
            locationServicesEnabled: false,
            apps: 0,
            clients: 0,
            sessions: 0,
            lingeringSessions: 0,
            pendingPrompts: 2,
            agents: 0,
            appsUsingLocation: [],
            appsUsingLocationInBackground: ["com.ex.run"]
        )
        other.locationServicesEnabledForUser = true
        var stopped = gpsd
        (stopped.running, stopped.hasFix, stopped.state) = (false, false, "stopped")
        let written = [
            encoder.daemonStatus(
                administrator,
                provider: gpsd,
                providers: [gpsd, network],
                lastFixFrom: "gpsd",
                storeHealthy: true,
                calls: 77
            ),
            encoder.daemonStatus(
                other,
                provider: stopped,
                providers: [stopped],
                lastFixFrom: nil,
                storeHealthy: false,
                calls: 3
            ),
        ]
        let expected = try WireGolden.messages("DaemonStatus")
        #expect(written.count == expected.count)
        for (status, golden) in zip(written, expected) {
            // The uptime is the clock's: the rest is the golden text.
            var fields = try #require(status.objectValue)
            #expect((fields["uptimeSeconds"]?.doubleValue ?? -1) >= 0)
            fields["uptimeSeconds"] = golden["uptimeSeconds"]
            #expect(JSONValue.object(fields).serialized == golden.serialized)
        }
    }

    @Test("PROTOCOL: the core's errors are answered as Error.json's replies, name, parameters and message")
    func errors() throws {
        let errors: [LocationError] = [
            .helloRequired, .noSuchSession(id: "s1-9"),
            .usageDescriptionMissing(key: Manifest.alwaysKey, manifest: "apps.d/com.ex.maps.toml"),
            .limitExceeded(limit: "max-sessions-per-app", maximum: 64), .invalidAnswer(id: "p1-4", answer: "allow"),
            .invalidParameter(parameter: "appId", reason: "expected 1 to 255 bytes"),
            .permissionDenied(reason: "join the locd group to use io.locd.Admin"),
        ]
        // io.locd.NetworkLocation's errors are locd-network's; the rest are locd's.
        let expected = try golden("Error").filter { !$0.contains(InterfaceName.networkLocation) }
        let written = errors.map { error in
            var text = ""
            VarlinkReply(error: error.varlinkError).write(to: &text)
            return text
        }
        #expect(written == expected)
    }
}
