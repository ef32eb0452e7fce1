import LocationTestSupport
import Testing

@testable import LocationCore

/// The tables of the source articles, row by row: seed 001 (iOS 13/14: what each request and choice
/// returns and what Settings shows) and seed 004 (iOS 8: which services need which authorization).
@Suite("Seed tables")
struct SeedTableTests {
    // MARK: Seed 001 — request × choice → status and Settings label

    /// One row of seed 001's 表示・返り値まとめ, with what the app sees once it has been terminated.
    struct Seed001Row: Sendable, CustomTestStringConvertible {
        var level: RequestLevel
        var choice: PromptAnswer
        /// What `locationManagerDidChangeAuthorization` reports after the choice.
        var status: AuthorizationStatus
        var label: SettingsLabel
        /// After the app is terminated and not relaunched within the relaunch window.
        var statusAfterExit: AuthorizationStatus
        var labelAfterExit: SettingsLabel

        var testDescription: String { "\(level.rawValue) + \(choice.rawValue)" }

        var requirement: Requirement { level == .always ? .always : .whenInUse }
    }

    static let seed001: [Seed001Row] = [
        // requestAlways + "Allow While Using": authorizedAlways, while Settings shows While Using (P1).
        Seed001Row(
            level: .always,
            choice: .allowWhileUsing,
            status: .authorizedAlways,
            label: .whileUsing,
            statusAfterExit: .authorizedAlways,
            labelAfterExit: .whileUsing
        ),
        // "Allow Once": authorizedWhenInUse while running, notDetermined once terminated; Ask Next Time (P2, L5).
        Seed001Row(
            level: .always,
            choice: .allowOnce,
            status: .authorizedWhenInUse,
            label: .askNextTime,
            statusAfterExit: .notDetermined,
            labelAfterExit: .askNextTime
        ),
        Seed001Row(
            level: .always,
            choice: .deny,
            status: .denied,
            label: .never,
            statusAfterExit: .denied,
            labelAfterExit: .never
        ),
        Seed001Row(
            level: .whenInUse,
            choice: .allowWhileUsing,
            status: .authorizedWhenInUse,
            label: .whileUsing,
            statusAfterExit: .authorizedWhenInUse,
            labelAfterExit: .whileUsing
        ),
        Seed001Row(
            level: .whenInUse,
            choice: .allowOnce,
            status: .authorizedWhenInUse,
            label: .askNextTime,
            statusAfterExit: .notDetermined,
            labelAfterExit: .askNextTime
        ),
        Seed001Row(
            level: .whenInUse,
            choice: .deny,
            status: .denied,
            label: .never,
            statusAfterExit: .denied,
            labelAfterExit: .never
        ),
    ]

    @Test(
        "A2: seed 001's table via RequestAuthorization: level × choice gives its status and Settings label",
        arguments: seed001
    )
    func seed001ByRequest(row: Seed001Row) {
        var h = Harness()
        let app = h.launch("com.ex.maps", pid: 501)
        let watcher = h.launch("com.ex.maps", pid: 501)
        let watch = h.call(watcher, .watchAuthorization)
        let request = h.call(app, .requestAuthorization(row.level))
        // P10: the reply is the current record; the outcome arrives on WatchAuthorization.
        #expect(h.reply(to: request) == .authorization(AuthorizationView(AuthorizationRecord())))
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])

        h.answer("com.ex.maps", row.choice)

        #expect(reportedStatuses(h, on: watch) == [.notDetermined, row.status])
        #expect(h.authorization("com.ex.maps").settingsLabel == row.label)
        #expect(h.prompts("com.ex.maps").isEmpty, "nothing more is asked while the app is in the foreground")
        expectAfterExit(&h, clients: [app, watcher], row: row)
    }

    @Test(
        "A2: seed 001's table via CreateSession: requirement × choice gives its status and Settings label",
        arguments: seed001
    )
    func seed001BySession(row: Seed001Row) {
        var h = Harness()
        let app = h.launch("com.ex.maps", pid: 502)
        let watcher = h.launch("com.ex.maps", pid: 502)
        let watch = h.call(watcher, .watchAuthorization)
        let session = h.create(app, row.requirement)!
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
        #expect(h.mask(session) == [.authorizationRequestInProgress])

        h.answer("com.ex.maps", row.choice)

        #expect(reportedStatuses(h, on: watch) == [.notDetermined, row.status])
        #expect(h.authorization("com.ex.maps").settingsLabel == row.label)
        // P6: in particular no upgrade prompt after Allow Once, even for an always session.
        #expect(h.prompts("com.ex.maps").isEmpty, "nothing more is asked while the app is in the foreground")
        expectAfterExit(&h, clients: [app, watcher], row: row)
    }

    /// Terminates the app (its connections close without Goodbye), lets the relaunch window pass, relaunches.
    private func expectAfterExit(
        _ h: inout Harness,
        clients: [ClientID],
        row: Seed001Row,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for client in clients { h.disconnect(client) }
        #expect(h.appState("com.ex.maps") == .terminated, sourceLocation: sourceLocation)
        h.advance(9)
        // Still in use inside the relaunch window (L2): an Allow Once grant holds until it closes.
        #expect(h.status("com.ex.maps") == row.status, sourceLocation: sourceLocation)
        h.advance(1)
        #expect(h.appState("com.ex.maps") == .notRunning, sourceLocation: sourceLocation)
        #expect(h.status("com.ex.maps") == row.statusAfterExit, sourceLocation: sourceLocation)
        #expect(h.authorization("com.ex.maps").settingsLabel == row.labelAfterExit, sourceLocation: sourceLocation)

        let relaunched = h.connect()
        let hello = h.call(relaunched, .hello(appID: "com.ex.maps", state: nil))
        guard case .hello(let authorization, _)? = h.reply(to: hello) else {
            Issue.record("Hello failed after the relaunch", sourceLocation: sourceLocation)
            return
        }
        #expect(authorization.status == row.statusAfterExit, sourceLocation: sourceLocation)
        #expect(authorization.settingsLabel == row.labelAfterExit, sourceLocation: sourceLocation)
    }

    private func reportedStatuses(_ h: Harness, on stream: CallID) -> [AuthorizationStatus] {
        h.messages(to: stream, inLast: false).compactMap { message in
            if case .authorization(let view) = message { view.status } else { nil }
        }
    }

    /// How an app asks: the legacy request call, or by holding a session.
    enum Asker: String, CaseIterable, Sendable {
        case requestAuthorization
        case createSession

        func ask(_ h: inout Harness, _ client: ClientID, _ level: RequestLevel) {
            switch self {
            case .requestAuthorization:
                h.call(client, .requestAuthorization(level))
            case .createSession:
                _ = h.create(client, level == .always ? .always : .whenInUse)
            }
        }
    }

    @Test(
        "P10: seed 001: When In Use → While Using, then asking for Always raises the upgrade prompt at once",
        arguments: Asker.allCases
    )
    func upgradeAfterWhileUsing(asker: Asker) {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        asker.ask(&h, app, .whenInUse)
        h.answer("com.ex.maps", .allowWhileUsing)
        #expect(h.authorization("com.ex.maps").status == .authorizedWhenInUse)
        #expect(h.prompts("com.ex.maps").isEmpty)

        asker.ask(&h, app, .always)

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.alwaysUpgrade])
        #expect(h.prompts("com.ex.maps").first?.options == [.keepWhileUsing, .changeToAlways])
        h.answer("com.ex.maps", .changeToAlways)
        #expect(h.status("com.ex.maps") == .authorizedAlways)
        #expect(h.authorization("com.ex.maps").settingsLabel == .always)
    }

    @Test(
        "P6: seed 001: When In Use → Allow Once, then asking for Always raises no upgrade prompt",
        arguments: Asker.allCases
    )
    func noUpgradeAfterAllowOnce(asker: Asker) {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        asker.ask(&h, app, .whenInUse)
        h.answer("com.ex.maps", .allowOnce)

        asker.ask(&h, app, .always)

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(
            h.core.storedRecord(AppKey.noUser("com.ex.maps"))
                == AuthorizationRecord(status: .authorizedWhenInUse, oneTime: true)
        )
        #expect(h.authorization("com.ex.maps").settingsLabel == .askNextTime)
    }

    // MARK: Seed 004 — authorization × service, in use or not

    enum Grant: String, CaseIterable, Sendable {
        case denied, whenInUse, always

        var setting: AuthorizationSetting {
            switch self {
            case .denied: .never
            case .whenInUse: .whileUsing
            case .always: .always
            }
        }

        /// The session the app holds: it asks for what it was granted (iOS 18: an app that wants location
        /// while not in use says so with an always session).
        var requirement: Requirement { self == .always ? .always : .whenInUse }
    }

    enum Service: String, CaseIterable, Sendable {
        /// Seed 004's standard location service: `LiveUpdates`.
        case liveUpdates
        /// Seed 004's region monitoring: `MonitorEvents`.
        case regionMonitoring

        var call: Call {
            self == .liveUpdates ? .liveUpdates(.standard) : .monitorEvents(monitor: "home")
        }

        /// The bits that stop the service: U1's for an update; for a monitor event, the authorization ones.
        var blocking: DiagnosticMask {
            switch self {
            case .liveUpdates: .withholdingLocation
            case .regionMonitoring: [.authorizationDenied, .authorizationRestricted, .insufficientlyInUse]
            }
        }
    }

    struct Seed004Row: Sendable, CustomTestStringConvertible {
        var grant: Grant
        var service: Service
        var inUse: Bool
        /// The blocking bits the stream's mask carries; empty means the service works.
        var blocking: DiagnosticMask

        var testDescription: String {
            "\(grant.rawValue) × \(service.rawValue), \(inUse ? "in use" : "not in use") → "
                + (blocking.isEmpty ? "works" : "\(blocking)")
        }
    }

    static let seed004: [Seed004Row] = [
        // Never: nothing works.
        Seed004Row(grant: .denied, service: .liveUpdates, inUse: true, blocking: [.authorizationDenied]),
        Seed004Row(grant: .denied, service: .liveUpdates, inUse: false, blocking: [.authorizationDenied]),
        Seed004Row(grant: .denied, service: .regionMonitoring, inUse: true, blocking: [.authorizationDenied]),
        Seed004Row(grant: .denied, service: .regionMonitoring, inUse: false, blocking: [.authorizationDenied]),
        // While Using: standard location works while the app is in use; monitoring out of use needs Always.
        Seed004Row(grant: .whenInUse, service: .liveUpdates, inUse: true, blocking: []),
        Seed004Row(grant: .whenInUse, service: .liveUpdates, inUse: false, blocking: [.insufficientlyInUse]),
        Seed004Row(grant: .whenInUse, service: .regionMonitoring, inUse: true, blocking: []),
        Seed004Row(grant: .whenInUse, service: .regionMonitoring, inUse: false, blocking: [.insufficientlyInUse]),
        // Always: everything works, in use or not.
        Seed004Row(grant: .always, service: .liveUpdates, inUse: true, blocking: []),
        Seed004Row(grant: .always, service: .liveUpdates, inUse: false, blocking: []),
        Seed004Row(grant: .always, service: .regionMonitoring, inUse: true, blocking: []),
        Seed004Row(grant: .always, service: .regionMonitoring, inUse: false, blocking: []),
    ]

    @Test(
        "U4: seed 004's table: whether live updates and region monitoring work per authorization, in use or not",
        arguments: seed004
    )
    func seed004Table(row: Seed004Row) {
        var h = Harness()
        h.set("com.ex.maps", row.grant.setting)
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.maps")
        _ = h.create(app, row.grant.requirement)
        let stream = h.call(app, row.service.call)
        if !row.inUse {
            h.call(app, .setAppState(.background))
            h.advance(10)  // the background grace passes
        }
        #expect(h.inUse("com.ex.maps") == row.inUse)
        #expect(h.prompts("com.ex.maps").isEmpty)

        guard let mask = h.masks(on: stream).last else {
            Issue.record("the stream sent nothing")
            return
        }
        #expect(mask.intersection(row.service.blocking) == row.blocking)
    }

    @Test(
        "D4: out of use, monitoring works with authorizedAlways at any requirement; updates need an always session",
        arguments: Service.allCases
    )
    func monitorException(service: Service) {
        var h = Harness()
        h.set("com.ex.maps", .always)
        h.send(.fix(Harness.here))
        let app = h.launch("com.ex.maps")
        let stream = h.call(app, service.call)  // only the implicit whenInUse session
        h.call(app, .setAppState(.background))
        h.advance(10)
        #expect(h.inUse("com.ex.maps") == false)

        let expected: DiagnosticMask = service == .regionMonitoring ? [] : [.insufficientlyInUse]
        #expect(h.masks(on: stream).last == expected)

        _ = h.create(app, .always)  // declaring Always lets updates through out of use too
        #expect(h.masks(on: stream).last == [])
    }
}
