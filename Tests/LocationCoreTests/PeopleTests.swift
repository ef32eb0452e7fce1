import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS §15 in the core: two people, the same app, each deciding for their own.
@Suite("People")
struct PeopleTests {
    private static let alice: UInt32 = 1000
    private static let bob: UInt32 = 1001
    private static let maps = "com.ex.maps"
    private static let alicesMaps = AppKey(maps, user: alice)
    private static let bobsMaps = AppKey(maps, user: bob)

    /// The error of a call, `nil` when it succeeded.
    private func error(_ h: inout Harness, _ client: ClientID, _ method: Call) -> LocationError? {
        let call = h.call(client, method)
        return h.error(of: call)
    }

    private func apps(_ h: inout Harness, as client: ClientID) -> [AppView] {
        let call = h.call(client, .listApps(user: nil))
        guard case .apps(let views)? = h.reply(to: call) else { return [] }
        return views
    }

    @Test("H1: one user's answer decides for that user's app only; the other is asked for their own")
    func decisionsBelongToAUser() {
        var h = Harness()
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        let bob = h.launch(Self.maps, user: Self.bob, state: .foreground)
        _ = h.create(alice, .whenInUse)
        #expect(h.prompts(Self.alicesMaps).map(\.kind) == [.authorization])
        #expect(h.prompts(Self.bobsMaps).isEmpty, "Bob's app asked nothing")
        #expect(h.answer(Self.alicesMaps, .deny) == nil)
        #expect(h.status(Self.alicesMaps) == .denied)
        #expect(
            h.persisted.contains(.record(AppKey(Self.maps, user: Self.alice), AuthorizationRecord(status: .denied)))
        )
        #expect(h.status(Self.bobsMaps) == .notDetermined, "one deny is Alice's alone")
        // Bob's own session asks Bob, and his answer is his.
        _ = h.create(bob, .whenInUse)
        #expect(h.prompts(Self.bobsMaps).map(\.kind) == [.authorization])
        #expect(h.answer(Self.bobsMaps, .allowWhileUsing) == nil)
        #expect(h.status(Self.bobsMaps) == .authorizedWhenInUse)
        #expect(h.status(Self.alicesMaps) == .denied)
        // The installed entry of no user decided nothing (H2).
        #expect(h.status(Self.maps) == .notDetermined)
    }

    @Test("H1: one user's Maps in the foreground does not make another user's Maps in use")
    func inUseIsPerUser() {
        var h = Harness()
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        let bob = h.launch(Self.maps, user: Self.bob, state: .foreground)
        h.call(bob, .setAppState(.background))
        h.advance(60)
        #expect(h.inUse(Self.alicesMaps))
        #expect(!h.inUse(Self.bobsMaps), "Bob's app is past its grace, whatever Alice's does")
        h.call(alice, .setAppState(.background))
        h.call(alice, .setAppState(.foreground))
        #expect(!h.inUse(Self.bobsMaps))
    }

    @Test("H4: ListApps naming a user lists that user's apps for an administrator, and is refused to anyone else")
    func listAppsOfAUser() {
        var h = Harness()
        _ = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.launch("com.ex.run", user: Self.bob, state: .foreground)
        let admin = h.connect(uid: 0)
        let call = h.call(admin, .listApps(user: Self.bob))
        guard case .apps(let views)? = h.reply(to: call) else {
            Issue.record("ListApps(user) answered \(String(describing: h.reply(to: call)))")
            return
        }
        // Bob's app, and each installed app Bob has not run yet, as Bob's at its defaults (H2); never Alice's.
        #expect(views.first.map { AppKey($0.appID, user: $0.user) } == AppKey("com.ex.run", user: Self.bob))
        #expect(views.allSatisfy { $0.user == Self.bob })
        #expect(views.dropFirst().allSatisfy { $0.state == .notRunning && $0.authorization.status == .notDetermined })
        let bobsSettings = h.person(Self.bob)
        guard case .permissionDenied? = error(&h, bobsSettings, .listApps(user: Self.alice)) else {
            Issue.record("naming another user was not refused")
            return
        }
        #expect(error(&h, bobsSettings, .listApps(user: Self.bob)) == nil, "naming oneself is one's own apps")
    }

    @Test("H2: a user's app takes the installed manifest and goes when it has nothing left; the entry of no user stays")
    func installedEntry() {
        var h = Harness()
        let bob = h.launch(Self.maps, user: Self.bob, state: .foreground)
        #expect(h.core.apps[Self.bobsMaps]?.manifest == h.core.apps[Self.maps]?.manifest)
        h.call(bob, .goodbye)
        h.disconnect(bob)
        #expect(h.core.apps[Self.bobsMaps] == nil, "nothing decided, nothing running: forgotten (F18)")
        #expect(h.core.apps[Self.maps] != nil)
        let admin = h.connect(uid: 0)
        let listed = apps(&h, as: admin).filter { $0.appID == Self.maps }
        #expect(listed.map(\.user) == [nil])
    }

    @Test(
        "H4: an ordinary user lists, sets and answers only their own apps; naming another user or another's prompt is refused"
    )
    func scopeOfAnOrdinaryUser() {
        var h = Harness()
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.create(alice, .whenInUse)
        let bob = h.launch("com.ex.run", user: Self.bob, state: .foreground)
        _ = h.create(bob, .whenInUse)
        let bobsSettings = h.person(Self.bob)
        // Only Bob's apps (his running one, and the installed ones he has not run, H2), not Alice's, nor the
        // installed entries of no user.
        let listed = apps(&h, as: bobsSettings)
        #expect(listed.first.map { AppKey($0.appID, user: $0.user) } == AppKey("com.ex.run", user: Self.bob))
        #expect(listed.allSatisfy { $0.user == Self.bob })
        // Bob sets his own app; naming Alice is refused; Alice's app id reaches Bob's own (none): NoSuchApp.
        #expect(
            error(&h, bobsSettings, .setAuthorization(appID: "com.ex.run", setting: .never, precise: nil, user: nil))
                == nil
        )
        #expect(h.status(AppKey("com.ex.run", user: Self.bob)) == .denied)
        let named = error(
            &h,
            bobsSettings,
            .setAuthorization(appID: Self.maps, setting: .always, precise: nil, user: Self.alice)
        )
        guard case .permissionDenied? = named else {
            Issue.record("naming another user answered \(String(describing: named))")
            return
        }
        // Alice's app id is installed: it reaches Bob's own app of it, which is not running (H2).
        guard
            case .invalidParameter? = error(
                &h,
                bobsSettings,
                .adminSetAppState(appID: Self.maps, state: .background, user: nil)
            )
        else {
            Issue.record("Bob's SetAppState of an installed app he never ran was not InvalidParameter")
            return
        }
        #expect(h.status(Self.alicesMaps) == .notDetermined)
        // Alice's prompt is no prompt to Bob.
        let alicesPrompt = h.prompts(Self.alicesMaps).first!
        let answered = error(
            &h,
            bobsSettings,
            .answerPrompt(id: alicesPrompt.id.description, answer: .allowWhileUsing, accuracy: nil)
        )
        #expect(answered == .noSuchPrompt(id: alicesPrompt.id.description))
        // Sessions: Bob's only.
        let sessions = h.call(bobsSettings, .adminListSessions(appID: nil, user: nil))
        guard case .sessions(let views)? = h.reply(to: sessions) else {
            Issue.record("ListSessions failed")
            return
        }
        #expect(!views.isEmpty && views.allSatisfy { $0.user == Self.bob })
        // The administrators' methods.
        for method: Call in [
            .forgetApps(owner: .uid(Self.alice)), .promptsOfEveryone, .locationButton(appID: Self.maps, user: nil),
        ] {
            guard case .permissionDenied? = error(&h, bobsSettings, method) else {
                Issue.record("\(method) was not refused")
                continue
            }
        }
    }

    @Test("H4: an ordinary user's Watch and Status show their own apps; counts only in aggregate")
    func watchAndStatus() {
        var h = Harness()
        let bobsWatch = h.person(Self.bob)
        let watch = h.call(bobsWatch, .watch)
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.create(alice, .whenInUse)
        #expect(h.answer(Self.alicesMaps, .allowWhileUsing) == nil)
        let bob = h.launch("com.ex.run", user: Self.bob, state: .foreground)
        _ = h.create(bob, .noAuthorization)
        let events = h.log.compactMap { action -> AdminEvent? in
            if case .emit(watch, .event(let event)) = action { event } else { nil }
        }
        #expect(!events.isEmpty)
        #expect(
            events.allSatisfy { $0.user == Self.bob || $0.appID == nil },
            "Bob saw \(events.filter { $0.user != Self.bob })"
        )
        let status = h.call(h.person(Self.bob), .status)
        guard case .status(let figures)? = h.reply(to: status) else {
            Issue.record("Status failed")
            return
        }
        #expect(figures.appsUsingLocation.isEmpty, "Alice's Maps uses location; Bob does not learn it")
        #expect(figures.locationServicesEnabledForUser == true)
        let admin = h.call(h.connect(uid: 0), .status)
        guard case .status(let machine)? = h.reply(to: admin) else { return }
        #expect(machine.appsUsingLocation == [Self.maps])
        #expect(machine.locationServicesEnabledForUser == nil)
    }

    @Test("H5: an administrator's Never for every user denies each user's app, now and later; no user may loosen it")
    func policyNever() {
        var h = Harness()
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.create(alice, .whenInUse)
        #expect(!h.prompts(Self.alicesMaps).isEmpty)
        h.set(Self.maps, .never)
        #expect(h.status(Self.alicesMaps) == .denied)
        #expect(h.prompts(Self.alicesMaps).isEmpty, "the prompt the policy answers is withdrawn")
        #expect(h.persisted.contains(.policy(appID: Self.maps, AppPolicy(setting: .never, precise: nil))))
        // A later user's app starts denied.
        let bob = h.launch(Self.maps, user: Self.bob, state: .foreground)
        #expect(h.status(Self.bobsMaps) == .denied)
        _ = h.create(bob, .whenInUse)
        #expect(h.prompts(Self.bobsMaps).isEmpty)
        // Bob may not loosen it; he may keep it.
        let loosened = error(
            &h,
            h.person(Self.bob),
            .setAuthorization(appID: Self.maps, setting: .whileUsing, precise: nil, user: nil)
        )
        guard case .permissionDenied(let reason)? = loosened else {
            Issue.record("loosening answered \(String(describing: loosened))")
            return
        }
        #expect(reason.contains("for every user") && reason.contains("stricter"))
        #expect(
            error(&h, h.person(Self.bob), .setAuthorization(appID: Self.maps, setting: .never, precise: nil, user: nil))
                == nil
        )
        // Ask Next Time lifts it: every user's app asks again, and users decide.
        h.set(Self.maps, .askNextTime)
        #expect(h.persisted.contains(.policy(appID: Self.maps, nil)))
        #expect(h.status(Self.alicesMaps) == .notDetermined && h.status(Self.bobsMaps) == .notDetermined)
        #expect(
            error(
                &h,
                h.person(Self.bob),
                .setAuthorization(appID: Self.maps, setting: .always, precise: nil, user: nil)
            ) == nil
        )
    }

    @Test("H5: under While Using for every user an answer goes no further: no provisional Always, no upgrade prompt")
    func policyWhileUsing() {
        var h = Harness()
        h.set(Self.maps, .whileUsing)
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        #expect(h.status(Self.alicesMaps) == .authorizedWhenInUse)
        h.call(
            h.person(Self.alice),
            .setAuthorization(appID: Self.maps, setting: .askNextTime, precise: nil, user: nil)
        )
        #expect(h.status(Self.alicesMaps) == .notDetermined)
        _ = h.create(alice, .always)
        #expect(h.prompts(Self.alicesMaps).map(\.kind) == [.authorization])
        #expect(h.answer(Self.alicesMaps, .allowWhileUsing) == nil)
        // P1 would make it provisional Always; the policy keeps it at While Using, and no upgrade is asked.
        let view = h.authorization(Self.alicesMaps)
        #expect(view.status == .authorizedWhenInUse && !view.provisional)
        #expect(h.prompts(Self.alicesMaps).isEmpty)
        let always = error(
            &h,
            h.person(Self.alice),
            .setAuthorization(appID: Self.maps, setting: .always, precise: nil, user: nil)
        )
        guard case .permissionDenied? = always else {
            Issue.record("Always answered \(String(describing: always))")
            return
        }
    }

    @Test("H5: approximate only for every user: no accuracy toggle, no precise setting, no temporary full accuracy")
    func policyApproximate() {
        var h = Harness()
        h.set(Self.maps, nil, precise: false)
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.create(alice, .whenInUse)
        let prompt = h.prompts(Self.alicesMaps).first
        #expect(prompt?.defaultAccuracy == .reduced && prompt?.accuracyToggle == false)
        #expect(h.answer(Self.alicesMaps, .allowWhileUsing) == nil)
        #expect(h.authorization(Self.alicesMaps).accuracy == .reducedAccuracy)
        _ = h.create(alice, .whenInUse, purposeKey: "Navigation")
        #expect(h.prompts(Self.alicesMaps).isEmpty, "no temporary full-accuracy prompt")
        let precise = error(
            &h,
            h.person(Self.alice),
            .setAuthorization(appID: Self.maps, setting: nil, precise: true, user: nil)
        )
        guard case .permissionDenied? = precise else {
            Issue.record("precise answered \(String(describing: precise))")
            return
        }
    }

    @Test("H5: an administrator naming a user sets that user's app only, made for it before the app first asks")
    func administratorNamesAUser() {
        var h = Harness()
        let admin = h.connect(uid: 0)
        h.call(admin, .setAuthorization(appID: Self.maps, setting: .always, precise: nil, user: Self.bob))
        #expect(h.status(Self.bobsMaps) == .authorizedAlways)
        _ = h.launch(Self.maps, user: Self.alice, state: .foreground)
        #expect(h.status(Self.alicesMaps) == .notDetermined)
        #expect(h.core.policies.isEmpty)
    }

    @Test("H6: a user turns location off for themselves: their apps are denied globally and not asked; others are not")
    func ownSwitch() {
        var h = Harness()
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        let alicesSession = h.create(alice, .whenInUse)!
        let bob = h.launch(Self.maps, user: Self.bob, state: .foreground)
        let bobsSession = h.create(bob, .whenInUse)!
        #expect(!h.prompts(Self.bobsMaps).isEmpty)
        #expect(error(&h, h.person(Self.bob), .setLocationServices(false)) == nil)
        #expect(h.persisted.contains(.userLocationServices(uid: Self.bob, enabled: false)))
        #expect(h.mask(bobsSession)?.contains(.authorizationDeniedGlobally) == true)
        #expect(h.prompts(Self.bobsMaps).isEmpty, "Bob's prompt is withdrawn")
        #expect(h.mask(alicesSession)?.contains(.authorizationDeniedGlobally) == false)
        #expect(h.prompts(Self.alicesMaps).map(\.kind) == [.authorization])
        #expect(h.core.locationServicesEnabled)
        #expect(error(&h, h.person(Self.bob), .setLocationServices(true)) == nil)
        #expect(h.mask(bobsSession)?.contains(.authorizationDeniedGlobally) == false)
        #expect(h.prompts(Self.bobsMaps).map(\.kind) == [.authorization], "turning it on is a moment to ask again")
    }

    @Test("H7: a prompt goes to its user's agents and to an administrator's that asked for everyone's, nowhere else")
    func promptsGoToThePerson() {
        var h = Harness()
        let alicesAgent = h.call(h.person(Self.alice), .prompts)
        let bobsAgent = h.call(h.person(Self.bob), .prompts)
        let rootsAgent = h.call(h.connect(uid: 0), .prompts)
        let everyone = h.call(h.connect(uid: 0), .promptsOfEveryone)
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.create(alice, .whenInUse)
        let prompt = h.prompts(Self.alicesMaps).first!
        #expect(prompt.user == Self.alice)
        func offered(_ agent: CallID) -> Bool {
            h.log.contains { if case .emit(agent, .prompt(let view)) = $0 { view.id == prompt.id } else { false } }
        }
        #expect(offered(alicesAgent) && offered(everyone))
        #expect(!offered(bobsAgent) && !offered(rootsAgent))
        // Alice answers through her own agent's connection; the withdrawal reaches only those who were offered it.
        let answer = error(
            &h,
            alicesAgent.client,
            .answerPrompt(id: prompt.id.description, answer: .allowOnce, accuracy: nil)
        )
        #expect(answer == nil)
        let withdrawn = h.last.compactMap { action -> CallID? in
            if case .emit(let stream, .withdrawn(prompt.id)) = action { stream } else { nil }
        }
        #expect(Set(withdrawn) == [alicesAgent, everyone])
        // An agent that joins later is sent its own user's pending prompts only.
        let bob = h.launch(Self.maps, user: Self.bob, state: .foreground)
        _ = h.create(bob, .whenInUse)
        let late = h.call(h.person(Self.alice), .prompts)
        #expect(h.messages(to: late).isEmpty)
    }

    @Test("H8: one user's sessions and agents are bounded; another user is not held by them")
    func boundsPerUser() {
        var h = Harness(configuration: CoreConfiguration(maxSessionsPerUID: 3, maxAgentsPerUID: 2))
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        let run = h.launch("com.ex.run", user: Self.alice, state: .foreground)
        #expect(
            h.create(alice, .noAuthorization) != nil && h.create(alice, .noAuthorization) != nil
                && h.create(run, .noAuthorization) != nil
        )
        #expect(
            error(&h, run, .createSession(.noAuthorization, purposeKey: nil))
                == .limitExceeded(limit: "max-sessions-per-uid", maximum: 3)
        )
        let bob = h.launch(Self.maps, user: Self.bob, state: .foreground)
        #expect(h.create(bob, .noAuthorization) != nil)
        // Ending one frees its place.
        h.call(alice, .goodbye)
        #expect(h.create(run, .noAuthorization) != nil)
        // Agents and watchers of an ordinary user.
        #expect(error(&h, h.person(Self.alice), .prompts) == nil)
        #expect(error(&h, h.person(Self.alice), .watch) == nil)
        #expect(error(&h, h.person(Self.alice), .prompts) == .limitExceeded(limit: "max-agents-per-uid", maximum: 2))
        #expect(error(&h, h.person(Self.bob), .prompts) == nil)
        #expect(error(&h, h.connect(uid: 0), .prompts) == nil, "an administrator is not held to it")
    }

    @Test(
        "H9: a subordinate uid's sessions, apps and agents count against the user it is delegated to; its decisions stay its own"
    )
    func subordinateUIDsShareTheBounds() {
        let subordinate: UInt32 = 100_001
        var configuration = CoreConfiguration(maxSessionsPerUID: 2, maxAgentsPerUID: 1)
        configuration.subordinateIDs = DelegatedUIDs([.init(first: 100_000, last: 165_535, owner: Self.alice)])
        var h = Harness(configuration: configuration)
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        let contained = h.launch(Self.maps, user: subordinate, state: .foreground)
        #expect(h.create(alice, .noAuthorization) != nil && h.create(contained, .noAuthorization) != nil)
        #expect(
            error(&h, contained, .createSession(.noAuthorization, purposeKey: nil))
                == .limitExceeded(limit: "max-sessions-per-uid", maximum: 2)
        )
        #expect(h.create(h.launch(Self.maps, user: Self.bob, state: .foreground), .noAuthorization) != nil)
        // Agents.
        #expect(error(&h, h.person(subordinate), .prompts) == nil)
        #expect(error(&h, h.person(Self.alice), .watch) == .limitExceeded(limit: "max-agents-per-uid", maximum: 1))
        // Decisions stay the subordinate uid's own (H1).
        #expect(h.core.apps[AppKey(Self.maps, user: subordinate)] != nil)
        #expect(h.status(AppKey(Self.maps, user: subordinate)) == .notDetermined)
        // A reload that delegates nothing counts each uid apart again.
        var apart = configuration
        apart.subordinateIDs = DelegatedUIDs()
        h.send(.reload(manifests: Harness.defaultManifests, configuration: apart))
        #expect(h.create(contained, .noAuthorization) != nil)

        // Apps without a manifest of their own (M3): Alice's and her subordinate uid's together, then none for either.
        var apps = CoreConfiguration(maxAppsPerUID: 2, allowUnknownApps: true)
        apps.subordinateIDs = configuration.subordinateIDs
        var made = Harness(configuration: apps)
        let hellos = [(Self.alice, "org.invented.a"), (subordinate, "org.invented.b"), (subordinate, "org.invented.c")]
        let errors = hellos.enumerated().map { index, hello in
            error(&made, made.connect(pid: 4000 + Int32(index), uid: hello.0), .hello(appID: hello.1, state: nil))
        }
        #expect(errors == [nil, nil, .limitExceeded(limit: "max-apps-per-uid", maximum: 2)])
        let bobs = made.connect(pid: 4100, uid: Self.bob)
        #expect(error(&made, bobs, .hello(appID: "org.invented.d", state: nil)) == nil)
    }

    @Test("H9: a uid in a range found to have an account of its own counts as itself, what it already holds included")
    func accountsInsideRangesCountAsThemselves() {
        let person: UInt32 = 100_002
        var configuration = CoreConfiguration(maxSessionsPerUID: 2)
        configuration.subordinateIDs = DelegatedUIDs([.init(first: 100_000, last: 165_535, owner: Self.alice)])
        var h = Harness(configuration: configuration)
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        let theirs = h.launch(Self.maps, user: person, state: .foreground)
        #expect(h.create(alice, .noAuthorization) != nil && h.create(theirs, .noAuthorization) != nil)
        let refused = LocationError.limitExceeded(limit: "max-sessions-per-uid", maximum: 2)
        #expect(error(&h, alice, .createSession(.noAuthorization, purposeKey: nil)) == refused)
        h.core.accountFound(person)
        #expect(h.core.account(person) == person && h.core.account(100_003) == Self.alice)
        // The person's session now counts against the person: Alice has room for one more, and so do they.
        #expect(h.create(alice, .noAuthorization) != nil)
        #expect(h.create(theirs, .noAuthorization) != nil)
        #expect(error(&h, alice, .createSession(.noAuthorization, purposeKey: nil)) == refused)
    }

    @Test("H1, H5, H6: a restored core has each user's records, the policies and the users' own switches")
    func restore() {
        var h = Harness()
        let alice = h.launch(Self.maps, user: Self.alice, state: .foreground)
        _ = h.create(alice, .whenInUse)
        #expect(h.answer(Self.alicesMaps, .allowWhileUsing) == nil)
        h.set("com.ex.run", .never)
        h.call(h.person(Self.bob), .setLocationServices(false))
        let stored = h.core.snapshot
        #expect(stored.records[Self.alicesMaps]?.status == .authorizedWhenInUse)
        h.core = LocationCore(
            configuration: CoreConfiguration(),
            manifests: Harness.defaultManifests,
            restoring: stored,
            epoch: 2,
            at: h.now
        )
        #expect(h.status(Self.alicesMaps) == .authorizedWhenInUse)
        #expect(h.core.policies["com.ex.run"] == AppPolicy(setting: .never, precise: nil))
        #expect(h.core.usersWithServicesOff == [Self.bob])
        _ = h.launch("com.ex.run", user: Self.bob, state: .foreground)
        #expect(h.status(AppKey("com.ex.run", user: Self.bob)) == .denied)
    }
}

extension PeopleTests {
    @Test("H6: a user's own switch is a servicesChanged of that user, seen by their Watch and not by another user's")
    func ownSwitchAnnounced() {
        var h = Harness()
        let alicesWatch = h.call(h.person(Self.alice), .watch)
        let bobsWatch = h.call(h.person(Self.bob), .watch)
        _ = h.call(h.person(Self.alice), .setLocationServices(false))
        let log = h.log
        func events(_ watch: CallID) -> [AdminEvent] {
            log.compactMap { action -> AdminEvent? in
                if case .emit(watch, .event(let event)) = action { event } else { nil }
            }
        }
        #expect(events(alicesWatch).contains { $0.kind == .servicesChanged && $0.user == Self.alice })
        #expect(!events(bobsWatch).contains { $0.kind == .servicesChanged }, "Bob learns nothing of Alice's switch")
    }
}
