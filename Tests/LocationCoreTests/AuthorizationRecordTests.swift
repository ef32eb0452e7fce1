import Foundation
import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS §3: the per-app authorization record — the restricted overlay (A1), the derived Settings
/// label (A2), admin settings (A3), and the re-evaluation and durability every change brings (A4).
@Suite("Authorization record")
struct AuthorizationRecordTests {
    // MARK: A1 — restricted is policy, laid over the stored record

    @Test("A1: a restricted-apps entry reads as restricted everywhere and no session or request prompts")
    func restrictedOverlay() {
        var h = Harness(configuration: CoreConfiguration(restrictedApps: ["com.ex.maps"]))
        let maps = h.launch("com.ex.maps")
        let session = h.create(maps, .always)!
        let request = h.call(maps, .requestAuthorization(.always))

        let restricted = restrictedView(of: AuthorizationRecord())
        #expect(h.reply(to: request) == .authorization(restricted))
        #expect(h.authorization("com.ex.maps") == restricted)
        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.mask(session) == [.authorizationRestricted])
        #expect(h.state(session) == .limited)
        #expect(
            h.core.storedRecord(AppKey.noUser("com.ex.maps")) == AuthorizationRecord(),
            "the overlay is never stored"
        )
    }

    @Test("A1: SetAuthorization on a restricted app changes nothing and returns the overlaid record")
    func restrictedIgnoresAdmin() {
        var h = Harness()
        h.set("com.ex.maps", .whileUsing, precise: false)
        let stored = h.core.storedRecord(AppKey.noUser("com.ex.maps"))!
        h.send(.reload(manifests: Harness.defaultManifests, configuration: restricting("com.ex.maps")))

        let admin = h.connect()
        let call = h.call(admin, .setAuthorization(appID: "com.ex.maps", setting: .always, precise: true, user: nil))

        // Status and label are restricted; the other fields are the stored ones.
        let expected = restrictedView(of: stored)
        #expect(expected.accuracy == .reducedAccuracy)
        #expect(h.reply(to: call) == .authorization(expected))
        #expect(h.core.storedRecord(AppKey.noUser("com.ex.maps")) == stored)
        #expect(h.persisted.isEmpty)
    }

    @Test("A1: a location button pressed for a restricted app changes nothing and returns the overlaid record")
    func restrictedIgnoresLocationButton() {
        var h = Harness(configuration: CoreConfiguration(restrictedApps: ["com.ex.maps"]))
        _ = h.launch("com.ex.maps")
        let admin = h.connect()
        let call = h.call(admin, .locationButton(appID: "com.ex.maps", user: nil))

        #expect(h.reply(to: call) == .authorization(restrictedView(of: AuthorizationRecord())))
        #expect(h.core.storedRecord(AppKey.noUser("com.ex.maps")) == AuthorizationRecord())
        #expect(h.persisted.isEmpty)
    }

    @Test("A1: removing an app from restricted-apps on reload reveals its stored record unchanged, at once")
    func unrestrictingRevealsRecord() {
        var h = Harness()
        h.set("com.ex.maps", .always, precise: false)
        h.send(.reload(manifests: Harness.defaultManifests, configuration: restricting("com.ex.maps")))
        let maps = h.launch("com.ex.maps")
        let session = h.create(maps, .always)!
        let diagnostics = h.call(maps, .sessionDiagnostics(session.description))
        #expect(h.mask(session) == [.authorizationRestricted])

        h.send(.reload(manifests: Harness.defaultManifests, configuration: CoreConfiguration()))

        let stored = AuthorizationRecord(
            status: .authorizedAlways,
            accuracy: .reducedAccuracy,
            alwaysDecision: .granted
        )
        #expect(h.core.storedRecord(AppKey.noUser("com.ex.maps")) == stored)
        #expect(h.authorization("com.ex.maps") == AuthorizationView(stored))
        #expect(h.authorization("com.ex.maps").settingsLabel == .always)
        #expect(h.messages(to: diagnostics) == [.diagnostic([], ended: false)])
        #expect(h.state(session) == .active)
    }

    @Test("A1: restricting an app on reload withdraws its pending prompt; lifting it lets the session ask again")
    func restrictingWithdrawsPrompt() {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        let agentClient = h.connect()
        let agent = h.call(agentClient, .prompts)
        let session = h.create(maps, .whenInUse)!
        let first = h.prompts("com.ex.maps").first!.id

        h.send(.reload(manifests: Harness.defaultManifests, configuration: restricting("com.ex.maps")))
        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.messages(to: agent) == [.withdrawn(first)])
        #expect(h.mask(session) == [.authorizationRestricted])

        h.send(.reload(manifests: Harness.defaultManifests, configuration: CoreConfiguration()))
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
        #expect(h.mask(session) == [.authorizationRequestInProgress])
    }

    // MARK: A2 — the Settings label

    struct LabelRow: Sendable, CustomTestStringConvertible {
        var record: AuthorizationRecord
        var label: SettingsLabel
        var testDescription: String {
            "\(record.status.rawValue)\(record.oneTime ? " oneTime" : "")\(record.provisional ? " provisional" : "")"
                + " → \(label.rawValue)"
        }
    }

    static let labelRows: [LabelRow] = [
        LabelRow(record: AuthorizationRecord(status: .restricted), label: .restricted),
        LabelRow(record: AuthorizationRecord(status: .restricted, oneTime: true), label: .restricted),
        LabelRow(record: AuthorizationRecord(status: .denied), label: .never),
        LabelRow(record: AuthorizationRecord(status: .denied, oneTime: true), label: .never),
        LabelRow(record: AuthorizationRecord(status: .notDetermined), label: .askNextTime),
        LabelRow(record: AuthorizationRecord(status: .authorizedWhenInUse, oneTime: true), label: .askNextTime),
        LabelRow(record: AuthorizationRecord(status: .authorizedWhenInUse), label: .whileUsing),
        LabelRow(record: AuthorizationRecord(status: .authorizedAlways, provisional: true), label: .whileUsing),
        LabelRow(record: AuthorizationRecord(status: .authorizedAlways), label: .always),
        LabelRow(
            record: AuthorizationRecord(
                status: .authorizedAlways,
                accuracy: .reducedAccuracy,
                alwaysDecision: .granted
            ),
            label: .always
        ),
    ]

    @Test(
        "A2: the label is the first match: restricted, denied, oneTime/notDetermined, provisional/whenInUse, always",
        arguments: labelRows
    )
    func settingsLabel(row: LabelRow) {
        #expect(row.record.settingsLabel == row.label)
        #expect(AuthorizationView(row.record).settingsLabel == row.label)
        #expect(AuthorizationView(row.record).status == row.record.status)
    }

    @Test("A2: the label is derived, never stored: the stored record has no label, ListApps shows it beside the status")
    func labelIsDerived() throws {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        _ = h.create(maps, .whenInUse)
        h.answer("com.ex.maps", .allowOnce)

        let written = h.log.compactMap { action -> AuthorizationRecord? in
            if case .persist(.record(AppKey.noUser("com.ex.maps"), let record)) = action { record } else { nil }
        }
        #expect(written.last == AuthorizationRecord(status: .authorizedWhenInUse, oneTime: true))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(written.last!)) as? [String: Any]
        #expect(json?["settingsLabel"] == nil)

        let admin = h.connect()
        let list = h.call(admin, .listApps(user: nil))
        guard case .apps(let apps)? = h.reply(to: list), let entry = apps.first(where: { $0.appID == "com.ex.maps" })
        else {
            Issue.record("ListApps did not list com.ex.maps")
            return
        }
        #expect(entry.authorization.status == .authorizedWhenInUse)
        #expect(entry.authorization.settingsLabel == .askNextTime)
    }

    // MARK: A3 — admin settings

    struct SettingRow: Sendable, CustomTestStringConvertible {
        var setting: AuthorizationSetting?
        var precise: Bool?
        var expected: AuthorizationRecord
        var label: SettingsLabel
        var testDescription: String { "\(setting?.rawValue ?? "(none)") precise \(precise.map { "\($0)" } ?? "-")" }
    }

    static let settingRows: [SettingRow] = [
        SettingRow(
            setting: .never,
            precise: nil,
            expected: AuthorizationRecord(status: .denied, accuracy: .reducedAccuracy),
            label: .never
        ),
        SettingRow(
            setting: .askNextTime,
            precise: nil,
            expected: AuthorizationRecord(
                status: .notDetermined,
                accuracy: .reducedAccuracy,
                alwaysDecision: .undecided
            ),
            label: .askNextTime
        ),
        SettingRow(
            setting: .whileUsing,
            precise: nil,
            expected: AuthorizationRecord(
                status: .authorizedWhenInUse,
                accuracy: .reducedAccuracy,
                alwaysDecision: .declined
            ),
            label: .whileUsing
        ),
        SettingRow(
            setting: .always,
            precise: nil,
            expected: AuthorizationRecord(
                status: .authorizedAlways,
                provisional: false,
                accuracy: .reducedAccuracy,
                alwaysDecision: .granted
            ),
            label: .always
        ),
        SettingRow(
            setting: .always,
            precise: true,
            expected: AuthorizationRecord(
                status: .authorizedAlways,
                accuracy: .fullAccuracy,
                alwaysDecision: .granted
            ),
            label: .always
        ),
        // Precise alone keeps the status, but still clears the one-time and temporary grants.
        SettingRow(
            setting: nil,
            precise: true,
            expected: AuthorizationRecord(status: .authorizedWhenInUse, accuracy: .fullAccuracy),
            label: .whileUsing
        ),
    ]

    @Test(
        "A3: an admin setting sets the record as Settings would and clears oneTime and temporaryFullAccuracy",
        arguments: settingRows
    )
    func adminSetting(row: SettingRow) {
        var h = Harness()
        // Allow Once with reduced accuracy, then temporary full accuracy for the session's purpose key.
        let maps = h.launch("com.ex.maps")
        _ = h.create(maps, .whenInUse, purposeKey: "Navigation")
        h.answer("com.ex.maps", .allowOnce, accuracy: .reduced)
        h.answer("com.ex.maps", .allow)
        #expect(
            h.core.storedRecord(AppKey.noUser("com.ex.maps"))
                == AuthorizationRecord(
                    status: .authorizedWhenInUse,
                    oneTime: true,
                    accuracy: .reducedAccuracy,
                    temporaryFullAccuracy: true
                )
        )

        h.set("com.ex.maps", row.setting, precise: row.precise)

        #expect(h.core.storedRecord(AppKey.noUser("com.ex.maps")) == row.expected)
        #expect(h.authorization("com.ex.maps") == AuthorizationView(row.expected))
        #expect(h.authorization("com.ex.maps").settingsLabel == row.label)
        #expect(h.persisted.contains(.record(AppKey.noUser("com.ex.maps"), row.expected)))
    }

    @Test("A3: Always set by an admin is not provisional and settles the upgrade; While Using declines it for good")
    func adminSettlesProvisional() {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        let session = h.create(maps, .always)!
        h.answer("com.ex.maps", .allowWhileUsing)
        #expect(h.core.storedRecord(AppKey.noUser("com.ex.maps"))?.provisional == true)

        h.set("com.ex.maps", .always)
        #expect(
            h.core.storedRecord(AppKey.noUser("com.ex.maps"))
                == AuthorizationRecord(status: .authorizedAlways, provisional: false, alwaysDecision: .granted)
        )
        #expect(h.authorization("com.ex.maps").settingsLabel == .always)

        h.set("com.ex.maps", .whileUsing)
        #expect(
            h.core.storedRecord(AppKey.noUser("com.ex.maps"))
                == AuthorizationRecord(status: .authorizedWhenInUse, alwaysDecision: .declined)
        )
        // The upgrade is never offered again, not even from the background (P4, P5).
        h.call(maps, .setAppState(.background))
        h.advance(10)
        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.mask(session) == [.insufficientlyInUse, .alwaysAuthorizationDenied])
    }

    @Test("A3: an admin change withdraws the pending prompt it answers; agents hear withdrawn")
    func adminWithdrawsAuthorizationPrompt() {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        let agentClient = h.connect()
        let agent = h.call(agentClient, .prompts)
        let session = h.create(maps, .whenInUse)!
        let prompt = h.prompts("com.ex.maps").first!.id
        #expect(h.messages(to: agent).count == 1)

        h.set("com.ex.maps", .whileUsing)

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.messages(to: agent) == [.withdrawn(prompt)])
        #expect(h.mask(session) == [])
        #expect(h.state(session) == .active)
    }

    @Test("A3: an admin change withdraws only the pending prompts whose raise condition no longer holds")
    func adminWithdrawsOnlyStalePrompts() {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        h.call(maps, .requestAuthorization(.whenInUse))
        h.answer("com.ex.maps", .allowWhileUsing, accuracy: .reduced)
        _ = h.create(maps, .always, purposeKey: "Navigation")
        let queued = h.prompts("com.ex.maps")
        #expect(queued.map(\.kind) == [.alwaysUpgrade, .temporaryFullAccuracy])

        h.set("com.ex.maps", nil, precise: true)  // full accuracy: the accuracy prompt has nothing to ask

        #expect(h.prompts("com.ex.maps") == [queued[0]])
    }

    @Test("A3: after a denial, an admin's Ask Next Time lets the app's session prompt again at once")
    func adminLiftsDenial() {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        let session = h.create(maps, .whenInUse)!
        h.answer("com.ex.maps", .deny)
        #expect(h.status("com.ex.maps") == .denied)
        _ = h.create(maps, .whenInUse)
        #expect(h.prompts("com.ex.maps").isEmpty, "P3: no prompt while denied")

        h.set("com.ex.maps", .askNextTime)

        #expect(h.status("com.ex.maps") == .notDetermined)
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
        #expect(h.mask(session) == [.authorizationRequestInProgress])
    }

    @Test("A3: an admin change lifts the suppression a dismissed prompt left")
    func adminLiftsSuppression() {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        let session = h.create(maps, .whenInUse)!
        h.advance(120)  // P8: dismissed
        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.mask(session) == [])
        h.call(maps, .setAppState(.background))
        h.call(maps, .setAppState(.foreground))
        #expect(h.prompts("com.ex.maps").isEmpty, "suppressed: coming forward again does not ask")

        h.set("com.ex.maps", nil, precise: false)

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
        #expect(h.mask(session) == [.authorizationRequestInProgress])
    }

    // MARK: A4 — every change re-evaluates at once and is durable before the reply

    @Test("A4: a record change re-evaluates every session and stream of the app in the same event")
    func recordChangeReevaluates() {
        var h = Harness()
        h.set("com.ex.maps", .whileUsing)
        h.set("com.ex.run", .whileUsing)
        h.send(.fix(Harness.here))
        let maps = h.launch("com.ex.maps")
        let session = h.create(maps, .whenInUse)!
        let diagnostics = h.call(maps, .sessionDiagnostics(session.description))
        let updates = h.call(maps, .liveUpdates(.standard))
        let monitor = h.call(maps, .monitorEvents(monitor: "home"))
        let run = h.launch("com.ex.run")
        let other = h.create(run, .whenInUse)!
        let otherDiagnostics = h.call(run, .sessionDiagnostics(other.description))
        #expect(h.mask(session) == [])

        h.set("com.ex.maps", .never)

        #expect(h.messages(to: diagnostics) == [.diagnostic([.authorizationDenied], ended: false)])
        #expect(h.messages(to: updates) == [.update([.authorizationDenied])])
        #expect(h.messages(to: monitor) == [.monitor([.authorizationDenied])])
        #expect(h.state(session) == .limited)
        #expect(h.messages(to: otherDiagnostics).isEmpty, "another app's session is not affected")
        #expect(h.state(other) == .active)
    }

    enum Decision: String, CaseIterable, Sendable {
        case answer, admin, locationButton, locationServices
    }

    @Test("A4: every record or switch change is persisted before its reply", arguments: Decision.allCases)
    func durableBeforeReply(decision: Decision) {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        _ = h.create(maps, .whenInUse)
        let admin = h.connect()
        let call: CallID
        switch decision {
        case .answer:
            let prompt = h.prompts("com.ex.maps").first!.id
            call = h.call(admin, .answerPrompt(id: prompt.description, answer: .allowWhileUsing, accuracy: nil))
        case .admin:
            call = h.call(admin, .setAuthorization(appID: "com.ex.maps", setting: .always, precise: nil, user: nil))
        case .locationButton:
            call = h.call(admin, .locationButton(appID: "com.ex.maps", user: nil))
        case .locationServices:
            call = h.call(admin, .setLocationServices(false))
        }
        let decisionIndex = h.last.firstIndex { if case .persist(let write) = $0 { write.isDecision } else { false } }
        let replyIndex = h.last.firstIndex { if case .reply(call, _) = $0 { true } else { false } }
        #expect(decisionIndex != nil)
        #expect(replyIndex != nil)
        if let decisionIndex, let replyIndex { #expect(decisionIndex < replyIndex) }
    }

    @Test("A4: turning location services off withdraws every pending prompt and re-evaluates every app at once")
    func servicesOff() {
        var h = Harness()
        h.set("com.ex.run", .whileUsing)
        let agentClient = h.connect()
        let agent = h.call(agentClient, .prompts)
        let maps = h.launch("com.ex.maps")
        let waiting = h.create(maps, .whenInUse)!
        let prompt = h.prompts("com.ex.maps").first!.id
        let run = h.launch("com.ex.run")
        let active = h.create(run, .whenInUse)!
        let diagnostics = h.call(run, .sessionDiagnostics(active.description))

        let admin = h.connect()
        let call = h.call(admin, .setLocationServices(false))

        #expect(h.reply(to: call) == .empty)
        #expect(h.persisted.first == .locationServices(false))
        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.messages(to: agent).contains(.withdrawn(prompt)))
        #expect(h.mask(waiting) == [.authorizationDenied, .authorizationDeniedGlobally])
        #expect(h.mask(active) == [.authorizationDenied, .authorizationDeniedGlobally])
        #expect(
            h.messages(to: diagnostics)
                == [.diagnostic([.authorizationDenied, .authorizationDeniedGlobally], ended: false)]
        )
        #expect(
            h.core.storedRecord(AppKey.noUser("com.ex.maps"))?.status == .notDetermined,
            "the records are untouched"
        )
    }

    @Test("A4: turning location services on is a prompt evaluation moment for every app")
    func servicesOn() {
        var h = Harness()
        let admin = h.connect()
        h.call(admin, .setLocationServices(false))
        let maps = h.launch("com.ex.maps")
        let mapsSession = h.create(maps, .whenInUse)!
        let run = h.launch("com.ex.run")
        let runSession = h.create(run, .always)!
        #expect(h.core.pendingPromptViews.isEmpty)

        h.call(admin, .setLocationServices(true))

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
        #expect(h.prompts("com.ex.run").map(\.kind) == [.authorization])
        #expect(h.mask(mapsSession) == [.authorizationRequestInProgress])
        #expect(h.mask(runSession) == [.authorizationRequestInProgress])
    }
}

/// The configuration with `appID` in `restricted-apps`.
private func restricting(_ appID: String) -> CoreConfiguration {
    CoreConfiguration(restrictedApps: [appID])
}

/// What replies show for a restricted app whose stored record is `stored` (A1).
private func restrictedView(of stored: AuthorizationRecord) -> AuthorizationView {
    var view = AuthorizationView(stored)
    view.status = .restricted
    view.settingsLabel = .restricted
    return view
}
