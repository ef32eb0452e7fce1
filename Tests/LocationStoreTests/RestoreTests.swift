import LocationCore
import LocationStore
import LocationTestSupport
import Testing

/// R3: a core restored from what the store kept has the same decisions, and its sessions wait for their clients.
@Suite struct RestoreTests {
    /// The core driver's apps: maps, run and approx take decisions here; the others must restore as untouched.
    static let manifests = Harness.defaultManifests

    @Test("R3: a core restored from the store has the records, sessions (lingering) and prompts it had")
    func restore() throws {
        try TemporaryDirectory.with { directory in
            let store = try LocationStore(directory: directory.path, bootID: "boot-a")
            var driver = CoreDriver(manifests: Self.manifests, persist: store.apply)

            let maps = try driver.connect(pid: 4242)
            try driver.call(maps, .hello(appID: "com.ex.maps", state: .foreground))
            let first = try driver.call(maps, .createSession(.whenInUse, purposeKey: nil))
            guard case .session(let firstSession)? = driver.reply(to: first) else {
                Issue.record("CreateSession failed: \(driver.last)")
                return
            }
            let agent = try driver.connect(pid: 1)
            try driver.call(agent, .prompts)
            let authorization = try #require(driver.core.queuedPrompts(of: AppKey.noUser("com.ex.maps")).first)
            #expect(authorization.kind == .authorization)
            try driver.call(
                agent,
                .answerPrompt(id: authorization.id.description, answer: .allowWhileUsing, accuracy: nil)
            )
            #expect(driver.core.storedRecord(AppKey.noUser("com.ex.maps"))?.status == .authorizedWhenInUse)
            // An Always session raises the upgrade prompt, left unanswered: it must come back after the restart.
            try driver.call(maps, .createSession(.always, purposeKey: "Navigation"))
            #expect(driver.core.queuedPrompts(of: AppKey.noUser("com.ex.maps")).first?.kind == .alwaysUpgrade)

            let admin = try driver.connect(pid: 1)
            try driver.call(admin, .setAuthorization(appID: "com.ex.run", setting: .always, precise: nil, user: nil))
            let run = try driver.connect(pid: 5151)
            try driver.call(run, .hello(appID: "com.ex.run", state: .foreground))
            let activity = try driver.call(run, .beginBackgroundActivity)
            guard case .session? = driver.reply(to: activity) else {
                Issue.record("BeginBackgroundActivity failed: \(driver.last)")
                return
            }
            try driver.call(run, .setAppState(.background))
            try driver.call(
                admin,
                .setAuthorization(appID: "com.ex.approx", setting: .always, precise: false, user: nil)
            )
            try driver.advance(3)

            let original = driver.core
            #expect(driver.written.contains { $0.isDecision })
            #expect(original.sessionIDs.count == 3)

            // The daemon restarts in the same boot: a new store object reads what the old one wrote.
            let loaded = try LocationStore(directory: directory.path, bootID: "boot-a").load()
            let expected = original.snapshot
            #expect(loaded.locationServicesEnabled == expected.locationServicesEnabled)
            #expect(loaded.records == expected.records.filter { app, _ in Self.decided.contains(app.appID) })
            #expect(loaded.sessions == expected.sessions)
            #expect(loaded.prompts == expected.prompts)
            #expect(loaded.apps == expected.apps.filter { app in loaded.apps.contains { $0.appID == app.appID } })
            #expect(Set(loaded.apps.map(\.appID)) == ["com.ex.maps", "com.ex.run"])

            let restartedAt = driver.now.adding(.seconds(2))
            let restored = LocationCore(
                configuration: CoreConfiguration(),
                manifests: Self.manifests,
                restoring: loaded,
                epoch: 2,
                at: restartedAt
            )
            #expect(restored.snapshot.records == expected.records)
            for manifest in Self.manifests {
                #expect(
                    restored.storedRecord(AppKey.noUser(manifest.appID))
                        == original.storedRecord(AppKey.noUser(manifest.appID))
                )
                #expect(
                    restored.authorizationView(AppKey.noUser(manifest.appID))
                        == original.authorizationView(AppKey.noUser(manifest.appID))
                )
            }
            #expect(restored.sessionIDs == original.sessionIDs)
            #expect(restored.sessionIDs.contains(firstSession.id))
            for id in restored.sessionIDs {
                #expect(restored.sessionView(id)?.state == .lingering)
            }
            let window = restartedAt.adding(CoreConfiguration().relaunchWindow)
            #expect(restored.snapshot.sessions.allSatisfy { $0.lingerEnds == window })
            #expect(
                restored.queuedPrompts(of: AppKey.noUser("com.ex.maps")).map(\.id)
                    == original.queuedPrompts(of: AppKey.noUser("com.ex.maps")).map(\.id)
            )
            #expect(restored.appState(AppKey.noUser("com.ex.run"))?.state == .background)
        }
    }

    /// The apps that had a decision written: the answer, and the two admin changes.
    static let decided: Set<String> = ["com.ex.maps", "com.ex.approx", "com.ex.run"]
}
