import LocationTestSupport
import Testing

@testable import LocationCore

/// SEMANTICS §5.2 (when prompts are raised, and when not) and §6 (prompts, agents, answers).
@Suite("Prompts and agents")
struct PromptTests {
    // MARK: §6 agents

    @Test("§6: an agent first receives the head of every app's pending queue, oldest first")
    func agentReceivesPendingHeads() throws {
        var h = Harness()
        let maps = h.launch("com.ex.maps")
        _ = try h.created(maps, .whenInUse)
        h.advance(1)
        let run = h.launch("com.ex.run")
        _ = try h.created(run, .whenInUse)
        let mapsHead = try #require(h.prompts("com.ex.maps").first)
        let runHead = try #require(h.prompts("com.ex.run").first)

        let agent = h.openAgent()

        #expect(h.messages(to: agent) == [.prompt(mapsHead), .prompt(runHead)])
    }

    @Test("§6: an agent receives only the head of a queue, then the next head when the first resolves")
    func agentReceivesEachNewHead() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps", accuracy: .reduced)
        let agent = h.openAgent()
        #expect(h.messages(to: agent).isEmpty)

        _ = try h.created(app, .always)
        let upgrade = try #require(h.prompts("com.ex.maps").first)
        #expect(h.messages(to: agent) == [.prompt(upgrade)])

        _ = try h.created(app, .whenInUse, purposeKey: "Navigation")
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.alwaysUpgrade, .temporaryFullAccuracy])
        #expect(h.messages(to: agent).isEmpty, "the accuracy prompt waits behind the head")

        #expect(h.answer("com.ex.maps", .keepWhileUsing) == nil)
        let accuracy = try #require(h.prompts("com.ex.maps").first)
        #expect(accuracy.kind == .temporaryFullAccuracy)
        #expect(h.messages(to: agent) == [.withdrawn(upgrade.id), .prompt(accuracy)])
    }

    @Test("§6: every agent hears withdrawn when another agent answers a prompt it was sent")
    func agentHearsWithdrawnWhenAnsweredElsewhere() throws {
        var h = Harness()
        let first = h.openAgent()
        let second = h.openAgent()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        let prompt = try #require(h.prompts("com.ex.maps").first)

        let admin = h.connect()
        let answer = h.call(admin, .answerPrompt(id: prompt.id.description, answer: .allowWhileUsing, accuracy: nil))

        #expect(h.reply(to: answer) == .empty)
        #expect(h.messages(to: first) == [.withdrawn(prompt.id)])
        #expect(h.messages(to: second) == [.withdrawn(prompt.id)])
        #expect(h.status("com.ex.maps") == .authorizedWhenInUse)
    }

    @Test("§6: a queued prompt that never reached the head is removed without a withdrawn to agents")
    func unsentPromptIsNotWithdrawn() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps", accuracy: .reduced)
        _ = try h.created(app, .always)
        let navigation = try h.created(app, .whenInUse, purposeKey: "Navigation")
        let agent = h.openAgent()
        let upgrade = try #require(h.prompts("com.ex.maps").first)
        #expect(h.messages(to: agent) == [.prompt(upgrade)])

        h.call(app, .invalidateSession(navigation.description))

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.alwaysUpgrade])
        #expect(h.messages(to: agent).isEmpty)
    }

    @Test("§6: AnswerPrompt naming anything but the head of a queue answers NoSuchPrompt")
    func answerNonHeadIsNoSuchPrompt() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps", accuracy: .reduced)
        _ = try h.created(app, .always)
        _ = try h.created(app, .whenInUse, purposeKey: "Navigation")
        let queue = h.prompts("com.ex.maps")
        try #require(queue.count == 2)
        let admin = h.connect()

        let behind = h.call(admin, .answerPrompt(id: queue[1].id.description, answer: .allow, accuracy: nil))
        #expect(h.error(of: behind) == .noSuchPrompt(id: queue[1].id.description))
        let unknown = h.call(admin, .answerPrompt(id: "p1-999", answer: .allow, accuracy: nil))
        #expect(h.error(of: unknown) == .noSuchPrompt(id: "p1-999"))
        let garbage = h.call(admin, .answerPrompt(id: "banana", answer: .allow, accuracy: nil))
        #expect(h.error(of: garbage) == .noSuchPrompt(id: "banana"))

        #expect(h.prompts("com.ex.maps") == queue)
        #expect(h.authorization("com.ex.maps").temporaryFullAccuracy == false)
    }

    @Test("§6: AnswerPrompt on a prompt already answered answers NoSuchPrompt")
    func answerTwiceIsNoSuchPrompt() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        let prompt = try #require(h.prompts("com.ex.maps").first)
        #expect(h.answer("com.ex.maps", .deny) == nil)

        let admin = h.connect()
        let again = h.call(admin, .answerPrompt(id: prompt.id.description, answer: .allowWhileUsing, accuracy: nil))

        #expect(h.error(of: again) == .noSuchPrompt(id: prompt.id.description))
        #expect(h.status("com.ex.maps") == .denied)
    }

    @Test("§6: AnswerPrompt with an option the prompt does not offer answers InvalidAnswer")
    func answerWithOptionNotOffered() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        let prompt = try #require(h.prompts("com.ex.maps").first)
        let admin = h.connect()

        for answer in [PromptAnswer.changeToAlways, .keepWhileUsing, .allow] {
            let call = h.call(admin, .answerPrompt(id: prompt.id.description, answer: answer, accuracy: nil))
            #expect(h.error(of: call) == .invalidAnswer(id: prompt.id.description, answer: answer.rawValue))
        }

        #expect(h.prompts("com.ex.maps") == [prompt])
        #expect(h.status("com.ex.maps") == .notDetermined)
    }

    @Test("§6: a pending prompt stays pending while its app is in the background")
    func promptStaysPendingInBackground() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        let prompt = try #require(h.prompts("com.ex.maps").first)

        h.call(app, .setAppState(.background))
        h.advance(60)

        #expect(h.inUse("com.ex.maps") == false)
        #expect(h.prompts("com.ex.maps") == [prompt])
        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)
        #expect(h.status("com.ex.maps") == .authorizedWhenInUse)
    }

    // MARK: S9 the queue

    @Test("S9: an app's prompts queue in the order raised and are answered one at a time")
    func queueOrder() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps", accuracy: .reduced)
        _ = try h.created(app, .always)
        _ = try h.created(app, .whenInUse, purposeKey: "Navigation")
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.alwaysUpgrade, .temporaryFullAccuracy])

        #expect(h.answer("com.ex.maps", .changeToAlways) == nil)
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.temporaryFullAccuracy])
        #expect(h.answer("com.ex.maps", .allow) == nil)
        #expect(h.prompts("com.ex.maps").isEmpty)

        let record = h.authorization("com.ex.maps")
        #expect(record.status == .authorizedAlways)
        #expect(record.temporaryFullAccuracy)
    }

    @Test("S9: a queued prompt's raisedAt and timeout start when it becomes the head")
    func raisedAtStartsAtHead() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps", accuracy: .reduced)
        _ = try h.created(app, .always)
        let headRaised = h.now
        h.advance(30)
        _ = try h.created(app, .whenInUse, purposeKey: "Navigation")
        #expect(h.prompts("com.ex.maps").first?.raisedAt == headRaised)

        h.advance(50)
        #expect(h.answer("com.ex.maps", .keepWhileUsing) == nil)
        let becameHead = h.now
        #expect(h.prompts("com.ex.maps").first?.raisedAt == becameHead)

        h.advance(119)
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.temporaryFullAccuracy], "120 s from the head, not the raise")
        h.advance(1)
        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    // MARK: §6.1 the authorization prompt

    @Test("§6.1: the authorization prompt offers allowWhileUsing, allowOnce and deny with a precise toggle")
    func authorizationPromptShape() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)

        let prompt = try #require(h.prompts("com.ex.maps").first)
        #expect(prompt.kind == .authorization)
        #expect(prompt.appID == "com.ex.maps")
        #expect(prompt.usageDescription == "Shows you on the map")
        #expect(prompt.purposeKey == nil)
        #expect(prompt.options == [.allowWhileUsing, .allowOnce, .deny])
        #expect(prompt.defaultAccuracy == .full)
        #expect(prompt.accuracyToggle)
        #expect(prompt.raisedAt == h.now)
    }

    @Test("§6.1: the precise toggle's choice becomes the record's accuracy")
    func accuracyChoiceIsRecorded() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)

        #expect(h.answer("com.ex.maps", .allowWhileUsing, accuracy: .reduced) == nil)

        #expect(h.authorization("com.ex.maps").accuracy == .reducedAccuracy)
    }

    @Test("§6.1: NSLocationDefaultAccuracyReduced hides the toggle and defaults to reduced")
    func defaultAccuracyReducedPromptShape() throws {
        var h = Harness()
        let app = h.launch("com.ex.approx")
        _ = try h.created(app, .whenInUse)

        let prompt = try #require(h.prompts("com.ex.approx").first)
        #expect(prompt.defaultAccuracy == .reduced)
        #expect(prompt.accuracyToggle == false)
    }

    @Test("§6.1: NSLocationDefaultAccuracyReduced makes the accuracy reduced whatever the answer says")
    func defaultAccuracyReducedIgnoresAnswer() throws {
        var h = Harness()
        let app = h.launch("com.ex.approx")
        _ = try h.created(app, .whenInUse)

        #expect(h.answer("com.ex.approx", .allowWhileUsing, accuracy: .full) == nil)

        let record = h.authorization("com.ex.approx")
        #expect(record.status == .authorizedWhenInUse)
        #expect(record.accuracy == .reducedAccuracy)
    }

    @Test("P1: allowWhileUsing authorizes when in use")
    func allowWhileUsing() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)

        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)

        let record = h.authorization("com.ex.maps")
        #expect(record.status == .authorizedWhenInUse)
        #expect(record.accuracy == .fullAccuracy)
        #expect(record.provisional == false)
        #expect(record.oneTime == false)
        #expect(record.settingsLabel == .whileUsing)
    }

    @Test("P1: allowWhileUsing while the app holds an always session gives provisional Always")
    func allowWhileUsingWithAlwaysSession() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .always)
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])

        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)

        let record = h.authorization("com.ex.maps")
        #expect(record.status == .authorizedAlways)
        #expect(record.provisional)
        #expect(record.settingsLabel == .whileUsing, "Settings shows While Using for a provisional grant")
        #expect(h.core.storedRecord(AppKey.noUser("com.ex.maps"))?.alwaysDecision == .undecided)
    }

    @Test("P1: allowWhileUsing after RequestAuthorization(always) gives provisional Always")
    func allowWhileUsingAfterRequestAlways() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        h.call(app, .requestAuthorization(.always))
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])

        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)

        let record = h.authorization("com.ex.maps")
        #expect(record.status == .authorizedAlways)
        #expect(record.provisional)
    }

    @Test("P1: RequestAuthorization(always) joining a session's pending prompt makes its answer Always")
    func requestAlwaysJoinsPendingPrompt() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        let prompt = try #require(h.prompts("com.ex.maps").first)

        h.call(app, .requestAuthorization(.always))
        #expect(h.prompts("com.ex.maps") == [prompt], "no second authorization prompt")
        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)

        #expect(h.status("com.ex.maps") == .authorizedAlways)
        #expect(h.authorization("com.ex.maps").provisional)
    }

    @Test("P1: a RequestAuthorization(always) whose client left no longer makes the answer Always (S9)")
    func requestAlwaysLeftBeforeAnswer() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        let helper = h.connect(pid: 4242)
        h.call(helper, .hello(appID: "com.ex.maps", state: nil))
        h.call(helper, .requestAuthorization(.always))
        h.disconnect(helper)

        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)

        #expect(h.status("com.ex.maps") == .authorizedWhenInUse)
        #expect(!h.authorization("com.ex.maps").provisional)
    }

    @Test("P1: the effective requirement is judged when the prompt is answered, not when it was raised")
    func effectiveRequirementAtAnswerTime() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        h.advance(5)
        _ = try h.created(app, .always)
        #expect(h.prompts("com.ex.maps").count == 1)

        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)

        #expect(h.status("com.ex.maps") == .authorizedAlways)
        #expect(h.authorization("com.ex.maps").provisional)
    }

    @Test("P1: an always session that ended before the answer leaves a plain when-in-use grant")
    func alwaysSessionGoneBeforeAnswer() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        let always = try h.created(app, .always)
        h.call(app, .invalidateSession(always.description))

        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)

        #expect(h.status("com.ex.maps") == .authorizedWhenInUse)
        #expect(h.authorization("com.ex.maps").provisional == false)
    }

    @Test("P2: allowOnce grants when in use once, even when an always session asked")
    func allowOnce() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .always)

        #expect(h.answer("com.ex.maps", .allowOnce) == nil)

        let record = h.authorization("com.ex.maps")
        #expect(record.status == .authorizedWhenInUse)
        #expect(record.oneTime)
        #expect(record.provisional == false)
        #expect(record.settingsLabel == .askNextTime)
    }

    @Test("P2: an allow-once grant returns to notDetermined when the app stops being in use")
    func allowOnceEndsWithUse() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        #expect(h.answer("com.ex.maps", .allowOnce) == nil)

        h.call(app, .setAppState(.background))
        h.advance(9)
        #expect(h.status("com.ex.maps") == .authorizedWhenInUse)
        h.advance(1)

        #expect(h.status("com.ex.maps") == .notDetermined)
        #expect(h.authorization("com.ex.maps").oneTime == false)
    }

    @Test("P3: deny sets denied and no session, stream, request or start of use prompts again")
    func denyIsFinal() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)

        #expect(h.answer("com.ex.maps", .deny) == nil)
        #expect(h.status("com.ex.maps") == .denied)
        #expect(h.authorization("com.ex.maps").settingsLabel == .never)
        #expect(h.mask(session) == [.authorizationDenied])

        _ = try h.created(app, .always)
        let streamClient = h.launch("com.ex.maps")
        h.call(streamClient, .liveUpdates(.standard))
        h.call(app, .requestAuthorization(.whenInUse))
        h.call(app, .requestAuthorization(.always))
        h.call(app, .setAppState(.background))
        h.advance(20)
        h.call(app, .setAppState(.foreground))

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.status("com.ex.maps") == .denied)
    }

    @Test("P3: after deny, an admin's Ask Next Time lets the app's sessions prompt again")
    func denyLiftedByAdmin() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        #expect(h.answer("com.ex.maps", .deny) == nil)

        h.set("com.ex.maps", .askNextTime)

        #expect(h.status("com.ex.maps") == .notDetermined)
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
    }

    // MARK: §6.2 the Always upgrade

    @Test("P4: an always session of a when-in-use app in the foreground raises the upgrade prompt")
    func upgradeRaisedByAlwaysSession() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps")

        let always = try h.created(app, .always)

        let prompt = try #require(h.prompts("com.ex.maps").first)
        #expect(prompt.kind == .alwaysUpgrade)
        #expect(prompt.options == [.keepWhileUsing, .changeToAlways])
        #expect(prompt.usageDescription == "Tracks your trips")
        #expect(prompt.accuracyToggle == false)
        #expect(h.mask(always) == [.authorizationRequestInProgress])
    }

    @Test("P4: a provisional grant raises the upgrade in the background when the grace ends")
    func provisionalUpgradeAtGraceExpiry() throws {
        var h = Harness()
        let (app, _) = try h.launchProvisional("com.ex.maps")
        #expect(h.prompts("com.ex.maps").isEmpty, "no upgrade in the foreground for a provisional grant")

        h.call(app, .setAppState(.background))
        h.advance(9)
        #expect(h.prompts("com.ex.maps").isEmpty, "not within the grace")
        h.advance(1)

        let prompt = try #require(h.prompts("com.ex.maps").first)
        #expect(prompt.kind == .alwaysUpgrade)
        #expect(prompt.raisedAt == h.now)
        #expect(h.appState("com.ex.maps") == .background)
    }

    @Test("P4: until answered, a provisional grant works as Always in the background")
    func provisionalWorksAsAlways() throws {
        var h = Harness()
        let (app, always) = try h.launchProvisional("com.ex.maps")
        h.call(app, .setAppState(.background))
        h.advance(10)
        try #require(h.prompts("com.ex.maps").map(\.kind) == [.alwaysUpgrade])

        #expect(h.mask(always) == [])
        #expect(h.state(always) == .active)
    }

    @Test("P4: a provisional grant without an owned always session raises no upgrade in the background")
    func provisionalWithoutAlwaysSession() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        h.call(app, .requestAuthorization(.always))
        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)
        try #require(h.authorization("com.ex.maps").provisional)

        h.call(app, .setAppState(.background))
        h.advance(30)

        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    @Test("P4: creating an always session in the background past the grace raises the upgrade")
    func provisionalUpgradeAtCreate() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        h.call(app, .requestAuthorization(.always))
        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)
        h.call(app, .setAppState(.background))
        h.advance(30)
        try #require(h.prompts("com.ex.maps").isEmpty)

        _ = try h.created(app, .always)

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.alwaysUpgrade])
    }

    @Test("P4: resuming a lingering always session in the background past the grace raises the upgrade")
    func provisionalUpgradeAtResume() throws {
        var h = Harness()
        let (first, always) = try h.launchProvisional("com.ex.maps")
        let second = h.launch("com.ex.maps")
        h.call(second, .setAppState(.background))
        h.advance(5)
        h.disconnect(first)
        #expect(h.state(always) == .lingering)
        h.advance(5)
        #expect(h.inUse("com.ex.maps") == false)
        #expect(h.prompts("com.ex.maps").isEmpty, "a lingering always session is not owned")

        h.call(second, .resumeSession(always.description))

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.alwaysUpgrade])
    }

    @Test("P4: a dismissed background upgrade returns at the next grace expiry, not before")
    func dismissedUpgradeReturns() throws {
        var h = Harness()
        let (app, _) = try h.launchProvisional("com.ex.maps")
        let agent = h.openAgent()
        h.call(app, .setAppState(.background))
        h.advance(10)
        let first = try #require(h.prompts("com.ex.maps").first)
        h.advance(120)
        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.messages(to: agent) == [.withdrawn(first.id)])
        #expect(h.authorization("com.ex.maps").provisional, "dismissal leaves the record unchanged")

        h.advance(300)
        #expect(h.prompts("com.ex.maps").isEmpty)
        h.call(app, .setAppState(.foreground))
        #expect(h.prompts("com.ex.maps").isEmpty)
        h.call(app, .setAppState(.background))
        h.advance(10)

        let second = try #require(h.prompts("com.ex.maps").first)
        #expect(second.kind == .alwaysUpgrade)
        #expect(second.id != first.id)
    }

    @Test("P5: changeToAlways grants Always for good")
    func changeToAlways() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps")
        let always = try h.created(app, .always)

        #expect(h.answer("com.ex.maps", .changeToAlways) == nil)

        let record = h.authorization("com.ex.maps")
        #expect(record.status == .authorizedAlways)
        #expect(record.provisional == false)
        #expect(record.settingsLabel == .always)
        #expect(h.core.storedRecord(AppKey.noUser("com.ex.maps"))?.alwaysDecision == .granted)
        #expect(h.mask(always) == [])
    }

    @Test("P5: changeToAlways on a provisional grant makes it a full Always grant")
    func changeToAlwaysFromProvisional() throws {
        var h = Harness()
        let (app, _) = try h.launchProvisional("com.ex.maps")
        h.call(app, .setAppState(.background))
        h.advance(10)

        #expect(h.answer("com.ex.maps", .changeToAlways) == nil)

        let record = h.authorization("com.ex.maps")
        #expect(record.status == .authorizedAlways)
        #expect(record.provisional == false)
        #expect(record.settingsLabel == .always)
    }

    @Test("P5: keepWhileUsing on a provisional grant makes it when in use, not provisional")
    func keepWhileUsingFromProvisional() throws {
        var h = Harness()
        let (app, always) = try h.launchProvisional("com.ex.maps")
        h.call(app, .setAppState(.background))
        h.advance(10)

        #expect(h.answer("com.ex.maps", .keepWhileUsing) == nil)

        let record = h.authorization("com.ex.maps")
        #expect(record.status == .authorizedWhenInUse)
        #expect(record.provisional == false)
        #expect(h.core.storedRecord(AppKey.noUser("com.ex.maps"))?.alwaysDecision == .declined)
        #expect(h.mask(always) == [.insufficientlyInUse, .alwaysAuthorizationDenied])
    }

    @Test("P5: after keepWhileUsing the upgrade is never offered again")
    func keepWhileUsingIsFinal() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps")
        _ = try h.created(app, .always)
        #expect(h.answer("com.ex.maps", .keepWhileUsing) == nil)
        #expect(h.status("com.ex.maps") == .authorizedWhenInUse)

        _ = try h.created(app, .always)
        h.call(app, .requestAuthorization(.always))
        h.call(app, .setAppState(.background))
        h.advance(20)
        h.call(app, .setAppState(.foreground))

        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    @Test("P6: the upgrade is never offered for a one-time grant")
    func noUpgradeForOneTime() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        #expect(h.answer("com.ex.maps", .allowOnce) == nil)

        let always = try h.created(app, .always)
        h.call(app, .requestAuthorization(.always))

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.mask(always) == [.alwaysAuthorizationDenied])
    }

    // MARK: §6.3 temporary full accuracy

    @Test("P7: the accuracy prompt shows the purpose key's text and offers allow and deny")
    func accuracyPromptShape() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps", accuracy: .reduced)

        let session = try h.created(app, .whenInUse, purposeKey: "Navigation")

        let prompt = try #require(h.prompts("com.ex.maps").first)
        #expect(prompt.kind == .temporaryFullAccuracy)
        #expect(prompt.purposeKey == "Navigation")
        #expect(prompt.usageDescription == "Turn-by-turn needs your precise location")
        #expect(prompt.options == [.allow, .deny])
        #expect(prompt.accuracyToggle == false)
        #expect(h.mask(session) == [.authorizationRequestInProgress])
    }

    @Test("P7: allow grants temporary full accuracy until the app stops being in use")
    func allowTemporaryFullAccuracy() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps", accuracy: .reduced)
        let session = try h.created(app, .whenInUse, purposeKey: "Navigation")

        #expect(h.answer("com.ex.maps", .allow) == nil)
        #expect(h.authorization("com.ex.maps").temporaryFullAccuracy)
        #expect(h.authorization("com.ex.maps").accuracy == .reducedAccuracy, "the stored choice stays")
        #expect(h.mask(session) == [])

        h.call(app, .setAppState(.background))
        h.advance(10)

        #expect(h.authorization("com.ex.maps").temporaryFullAccuracy == false)
        #expect(h.mask(session) == [.insufficientlyInUse, .fullAccuracyDenied])
    }

    @Test("P7: deny makes the sessions with that purpose key report fullAccuracyDenied")
    func denyTemporaryFullAccuracy() throws {
        var h = Harness()
        let (app, plain) = try h.launchAuthorized("com.ex.maps", accuracy: .reduced)
        let navigation = try h.created(app, .whenInUse, purposeKey: "Navigation")

        #expect(h.answer("com.ex.maps", .deny) == nil)

        #expect(h.mask(navigation) == [.fullAccuracyDenied])
        #expect(h.state(navigation) == .limited)
        #expect(h.mask(plain) == [])
        #expect(h.authorization("com.ex.maps").status == .authorizedWhenInUse, "deny leaves the grant")
        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    // MARK: §6.4 timeouts, cancellation, legacy calls, location button

    @Test("P8: an unanswered prompt is dismissed after 120 s: record unchanged, withdrawn, request cleared")
    func promptTimeout() throws {
        var h = Harness()
        let agent = h.openAgent()
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)
        let prompt = try #require(h.prompts("com.ex.maps").first)
        #expect(h.mask(session) == [.authorizationRequestInProgress])

        h.advance(119)
        #expect(h.prompts("com.ex.maps") == [prompt])
        h.advance(1)

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.messages(to: agent) == [.withdrawn(prompt.id)])
        #expect(h.authorization("com.ex.maps") == AuthorizationView(AuthorizationRecord()))
        #expect(h.mask(session) == [])
    }

    @Test("P8: the timeout runs whether or not an agent is connected, and follows prompt-timeout")
    func promptTimeoutWithoutAgent() throws {
        var h = Harness(configuration: CoreConfiguration(promptTimeout: .seconds(30)))
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)

        h.advance(29.5)
        #expect(h.prompts("com.ex.maps").count == 1)
        h.advance(0.5)

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.status("com.ex.maps") == .notDetermined)
    }

    @Test("P8: a dismissed prompt is not raised again by coming back to the foreground within the grace")
    func dismissedStaysSuppressed() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)
        h.advance(120)
        try #require(h.prompts("com.ex.maps").isEmpty)

        h.call(app, .setAppState(.background))
        h.advance(5)
        h.call(app, .setAppState(.foreground))

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.mask(session) == [])
    }

    @Test("P8: a dismissed prompt is raised again when a new session asks")
    func dismissedRaisedByNewSession() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let first = try h.created(app, .whenInUse)
        h.advance(120)
        try #require(h.prompts("com.ex.maps").isEmpty)

        let second = try h.created(app, .whenInUse)

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
        #expect(h.mask(first) == [.authorizationRequestInProgress])
        #expect(h.mask(second) == [.authorizationRequestInProgress])
    }

    @Test("P8: a dismissed prompt is raised again at the app's next start of use")
    func dismissedRaisedAtStartOfUse() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        h.advance(120)
        try #require(h.prompts("com.ex.maps").isEmpty)

        h.call(app, .setAppState(.background))
        h.advance(10)
        #expect(h.inUse("com.ex.maps") == false)
        #expect(h.prompts("com.ex.maps").isEmpty)
        h.call(app, .setAppState(.foreground))

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
    }

    @Test("P9: a pending prompt is cancelled when a terminated app's relaunch window closes")
    func cancelledWhenRelaunchWindowCloses() throws {
        var h = Harness()
        let agent = h.openAgent()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        let prompt = try #require(h.prompts("com.ex.maps").first)

        h.disconnect(app)
        h.advance(9)
        #expect(h.appState("com.ex.maps") == .terminated)
        #expect(h.prompts("com.ex.maps") == [prompt], "a relaunch inside the window still finds it")
        h.advance(1)

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.messages(to: agent) == [.withdrawn(prompt.id)])
        #expect(h.status("com.ex.maps") == .notDetermined)
    }

    @Test("P9: Goodbye from the app's last client cancels its pending prompts")
    func cancelledByGoodbye() throws {
        var h = Harness()
        let agent = h.openAgent()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        let prompt = try #require(h.prompts("com.ex.maps").first)

        h.call(app, .goodbye)

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.messages(to: agent) == [.withdrawn(prompt.id)])
        #expect(h.appState("com.ex.maps") == .notRunning)
    }

    @Test("P9: a prompt is cancelled when the last session that called for it ends")
    func cancelledWhenNoSessionCalls() throws {
        var h = Harness()
        let agent = h.openAgent()
        let app = h.launch("com.ex.maps")
        let first = try h.created(app, .whenInUse)
        let second = try h.created(app, .always)
        let prompt = try #require(h.prompts("com.ex.maps").first)

        h.call(app, .invalidateSession(first.description))
        #expect(h.prompts("com.ex.maps") == [prompt], "the always session still calls for it")
        h.call(app, .invalidateSession(second.description))

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.messages(to: agent) == [.withdrawn(prompt.id)])
    }

    @Test("P9: a prompt raised by a stream is cancelled when the stream closes")
    func cancelledWhenStreamCloses() throws {
        var h = Harness()
        _ = h.launch("com.ex.maps")
        let streamClient = h.launch("com.ex.maps")
        h.call(streamClient, .liveUpdates(.standard))
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])

        h.disconnect(streamClient)

        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    @Test("P9: a request's prompt is cancelled when the requesting client leaves")
    func cancelledWhenRequesterLeaves() throws {
        var h = Harness()
        _ = h.launch("com.ex.maps")
        let requester = h.launch("com.ex.maps")
        h.call(requester, .requestAuthorization(.whenInUse))
        let prompt = try #require(h.prompts("com.ex.maps").first)
        let agent = h.openAgent()

        h.disconnect(requester)

        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.messages(to: agent) == [.withdrawn(prompt.id)])
        #expect(h.appState("com.ex.maps") == .foreground, "another client of the app remains")
    }

    @Test("P10: RequestAuthorization replies at once with the current record; the outcome comes on WatchAuthorization")
    func requestAuthorizationReplyAndWatch() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let watcher = h.launch("com.ex.maps")
        let watch = h.call(watcher, .watchAuthorization)
        let before = h.authorization("com.ex.maps")
        #expect(h.messages(to: watch) == [.authorization(before)])

        let request = h.call(app, .requestAuthorization(.whenInUse))
        #expect(h.reply(to: request) == .authorization(before))
        #expect(before.status == .notDetermined)
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
        #expect(h.messages(to: watch).isEmpty)

        #expect(h.answer("com.ex.maps", .allowWhileUsing) == nil)

        let after = h.authorization("com.ex.maps")
        #expect(after.status == .authorizedWhenInUse)
        #expect(h.messages(to: watch) == [.authorization(after)])
    }

    @Test("P10: a connection that repeats RequestAuthorization while its prompt waits is held once")
    func repeatedRequestsHeldOnce() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let other = h.launch("com.ex.maps")
        for _ in 0..<1000 { h.call(app, .requestAuthorization(.whenInUse)) }
        h.call(other, .requestAuthorization(.whenInUse))
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
        // One per connection and kind, however many calls: the app's requests are bounded by its clients.
        #expect(h.core.apps["com.ex.maps"]?.requests.count == 2)
        // The other connection's request still calls for the prompt once the first connection leaves.
        h.disconnect(app)
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
    }

    @Test("P10: RequestAuthorization raises no prompt unless the status is notDetermined")
    func requestAuthorizationOnlyWhenNotDetermined() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps")
        let authorized = h.call(app, .requestAuthorization(.whenInUse))
        #expect(h.reply(to: authorized) == .authorization(h.authorization("com.ex.maps")))
        #expect(h.prompts("com.ex.maps").isEmpty)

        h.set("com.ex.maps", .never)
        let denied = h.call(app, .requestAuthorization(.always))
        #expect(h.reply(to: denied) == .authorization(h.authorization("com.ex.maps")))
        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    @Test("P10: RequestAuthorization(always) on a when-in-use grant raises the upgrade prompt")
    func requestAlwaysRaisesUpgrade() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps")
        let watcher = h.launch("com.ex.maps")
        let watch = h.call(watcher, .watchAuthorization)

        let request = h.call(app, .requestAuthorization(.always))
        #expect(h.reply(to: request) == .authorization(h.authorization("com.ex.maps")))
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.alwaysUpgrade])

        #expect(h.answer("com.ex.maps", .changeToAlways) == nil)
        let after = h.authorization("com.ex.maps")
        #expect(after.status == .authorizedAlways)
        #expect(h.messages(to: watch) == [.authorization(after)])
    }

    @Test("P10: RequestTemporaryFullAccuracy raises the accuracy prompt; the grant comes on WatchAuthorization")
    func requestTemporaryFullAccuracy() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.approx")
        let watcher = h.launch("com.ex.approx")
        let watch = h.call(watcher, .watchAuthorization)

        let request = h.call(app, .requestTemporaryFullAccuracy(purposeKey: "Radar"))
        let before = h.authorization("com.ex.approx")
        #expect(h.reply(to: request) == .authorization(before))
        #expect(before.temporaryFullAccuracy == false)
        let prompt = try #require(h.prompts("com.ex.approx").first)
        #expect(prompt.kind == .temporaryFullAccuracy)
        #expect(prompt.purposeKey == "Radar")
        #expect(prompt.usageDescription == "Precise radar")

        #expect(h.answer("com.ex.approx", .allow) == nil)
        let after = h.authorization("com.ex.approx")
        #expect(after.temporaryFullAccuracy)
        #expect(h.messages(to: watch) == [.authorization(after)])
    }

    @Test("P10: RequestTemporaryFullAccuracy raises nothing while accuracy is already full")
    func requestTemporaryFullAccuracyWhenFull() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps", accuracy: .full)

        let request = h.call(app, .requestTemporaryFullAccuracy(purposeKey: "Navigation"))

        #expect(h.reply(to: request) == .authorization(h.authorization("com.ex.maps")))
        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    @Test("P11: a location button gives a foreground unauthorized app a one-time grant with no prompt")
    func locationButtonGrantsOnce() throws {
        var h = Harness()
        let agent = h.openAgent()
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)
        let pending = try #require(h.prompts("com.ex.maps").first)
        let button = h.connect()

        let press = h.call(button, .locationButton(appID: "com.ex.maps", user: nil))

        let record = h.authorization("com.ex.maps")
        #expect(h.reply(to: press) == .authorization(record))
        #expect(record.status == .authorizedWhenInUse)
        #expect(record.oneTime)
        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.messages(to: agent, inLast: false) == [.prompt(pending), .withdrawn(pending.id)])
        #expect(h.state(session) == .active)
    }

    @Test("P11: a location button grants once even when the status was denied")
    func locationButtonAfterDeny() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        #expect(h.answer("com.ex.maps", .deny) == nil)
        let button = h.connect()

        h.call(button, .locationButton(appID: "com.ex.maps", user: nil))

        let record = h.authorization("com.ex.maps")
        #expect(record.status == .authorizedWhenInUse)
        #expect(record.oneTime)
        #expect(h.prompts("com.ex.maps").isEmpty)
    }

    @Test("P11: when the button's grant ends the status is notDetermined, so the app may ask again")
    func locationButtonGrantEnds() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        #expect(h.answer("com.ex.maps", .deny) == nil)
        let button = h.connect()
        h.call(button, .locationButton(appID: "com.ex.maps", user: nil))

        h.call(app, .setAppState(.background))
        h.advance(10)
        #expect(h.status("com.ex.maps") == .notDetermined)
        #expect(h.authorization("com.ex.maps").oneTime == false)
        #expect(h.prompts("com.ex.maps").isEmpty, "no prompt in the background")
        h.call(app, .setAppState(.foreground))

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
    }

    @Test("P11: a location button changes nothing for an authorized, background, not running or restricted app")
    func locationButtonNoOp() throws {
        var h = Harness(configuration: CoreConfiguration(restrictedApps: ["com.ex.bare"]))
        _ = try h.launchAuthorized("com.ex.maps")
        let run = h.launch("com.ex.run")
        h.call(run, .setAppState(.background))
        _ = h.launch("com.ex.bare")
        let button = h.connect()

        for appID in ["com.ex.maps", "com.ex.run", "com.ex.approx", "com.ex.bare"] {
            let before = h.authorization(appID)
            let press = h.call(button, .locationButton(appID: appID, user: nil))
            #expect(h.reply(to: press) == .authorization(before), "\(appID)")
            #expect(h.authorization(appID) == before, "\(appID)")
            #expect(h.persisted.isEmpty, "\(appID)")
        }
        #expect(h.authorization("com.ex.bare").status == .restricted)
    }

    // MARK: §5.2 evaluation moments and suppression

    @Test("§5.2: a session created in the background prompts when the app comes to the foreground")
    func evaluatedOnForeground() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps", state: .background)
        let session = try h.created(app, .whenInUse)
        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.mask(session) == [.insufficientlyInUse])

        h.call(app, .setAppState(.foreground))

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
        #expect(h.mask(session) == [.authorizationRequestInProgress])
    }

    @Test("§5.2: resuming a session asks again for a dismissed prompt")
    func evaluatedOnResume() throws {
        var h = Harness()
        let first = h.launch("com.ex.maps")
        let second = h.launch("com.ex.maps")
        let session = try h.created(first, .whenInUse)
        h.advance(120)
        try #require(h.prompts("com.ex.maps").isEmpty)
        h.disconnect(first)

        h.call(second, .resumeSession(session.description))

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
    }

    @Test("§5.2: starting a stream asks again for a dismissed prompt")
    func evaluatedOnStream() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        h.advance(120)
        try #require(h.prompts("com.ex.maps").isEmpty)
        let streamClient = h.launch("com.ex.maps")

        h.call(streamClient, .liveUpdates(.standard))

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
    }

    @Test("§5.2: a request call asks again for a dismissed prompt")
    func evaluatedOnRequest() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        h.advance(120)
        try #require(h.prompts("com.ex.maps").isEmpty)

        h.call(app, .requestAuthorization(.whenInUse))

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
    }

    @Test("§5.2: an admin's record change lifts the suppression of a dismissed prompt")
    func adminChangeLiftsSuppression() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        h.advance(120)
        try #require(h.prompts("com.ex.maps").isEmpty)

        h.set("com.ex.maps", nil, precise: false)

        #expect(h.authorization("com.ex.maps").accuracy == .reducedAccuracy)
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
    }

    @Test("§5.2: turning location services on raises the prompts that were waiting")
    func evaluatedWhenServicesTurnOn() throws {
        var h = Harness()
        let agent = h.openAgent()
        let admin = h.connect()
        let app = h.launch("com.ex.maps")
        let session = try h.created(app, .whenInUse)
        let first = try #require(h.prompts("com.ex.maps").first)

        h.call(admin, .setLocationServices(false))
        #expect(h.prompts("com.ex.maps").isEmpty, "turning services off withdraws every prompt")
        #expect(h.messages(to: agent) == [.withdrawn(first.id)])
        h.call(app, .requestAuthorization(.whenInUse))
        #expect(h.prompts("com.ex.maps").isEmpty)

        h.call(admin, .setLocationServices(true))

        let second = try #require(h.prompts("com.ex.maps").first)
        #expect(second.kind == .authorization)
        #expect(h.messages(to: agent) == [.prompt(second)])
        #expect(h.mask(session) == [.authorizationRequestInProgress])
    }

    @Test("§5.2: answering a prompt evaluates again, so the accuracy prompt follows the grant it needed")
    func evaluatedWhenPromptResolves() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        let navigation = try h.created(app, .whenInUse, purposeKey: "Navigation")
        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])

        #expect(h.answer("com.ex.maps", .allowWhileUsing, accuracy: .reduced) == nil)

        let next = try #require(h.prompts("com.ex.maps").first)
        #expect(next.kind == .temporaryFullAccuracy)
        #expect(next.purposeKey == "Navigation")
        #expect(h.mask(navigation) == [.authorizationRequestInProgress])
    }

    @Test("§5.2: no prompt is raised while one of the same kind is pending")
    func noDuplicatePrompts() throws {
        var h = Harness()
        let app = h.launch("com.ex.maps")
        _ = try h.created(app, .whenInUse)
        _ = try h.created(app, .always)
        h.call(app, .requestAuthorization(.whenInUse))
        let streamClient = h.launch("com.ex.maps")
        h.call(streamClient, .liveUpdates(.standard))

        #expect(h.prompts("com.ex.maps").map(\.kind) == [.authorization])
    }

    @Test("§5.2: accuracy prompts are one per purpose key: a second key queues, the same key does not")
    func accuracyPromptPerPurposeKey() throws {
        var h = Harness(Harness.defaultManifests + [PromptTests.twoKeys])
        let (app, _) = try h.launchAuthorized("com.ex.twokeys", accuracy: .reduced)

        _ = try h.created(app, .whenInUse, purposeKey: "Navigation")
        _ = try h.created(app, .whenInUse, purposeKey: "Navigation")
        h.call(app, .requestTemporaryFullAccuracy(purposeKey: "Navigation"))
        _ = try h.created(app, .whenInUse, purposeKey: "Parking")

        #expect(h.prompts("com.ex.twokeys").map(\.purposeKey) == ["Navigation", "Parking"])
    }

    @Test("§5.2: a declined accuracy prompt is not raised again until a new session with its key asks")
    func declinedAccuracySuppressed() throws {
        var h = Harness()
        let (app, _) = try h.launchAuthorized("com.ex.maps", accuracy: .reduced)
        let navigation = try h.created(app, .whenInUse, purposeKey: "Navigation")
        #expect(h.answer("com.ex.maps", .deny) == nil)

        h.call(app, .setAppState(.background))
        h.advance(5)
        h.call(app, .setAppState(.foreground))
        _ = try h.created(app, .whenInUse)
        #expect(h.prompts("com.ex.maps").isEmpty)
        #expect(h.mask(navigation) == [.fullAccuracyDenied])

        _ = try h.created(app, .whenInUse, purposeKey: "Navigation")

        #expect(h.prompts("com.ex.maps").map(\.purposeKey) == ["Navigation"])
        #expect(h.mask(navigation) == [.authorizationRequestInProgress])
    }

    /// An app with two purpose keys, to show that accuracy prompts are per key.
    static let twoKeys = Manifest(
        appID: "com.ex.twokeys",
        whenInUseUsageDescription: "Finds parking",
        temporaryUsageDescriptions: ["Navigation": "Guides you there", "Parking": "Finds your bay"]
    )
}

extension Harness {
    /// Opens an `Admin.Prompts` stream, as a prompt agent does, and returns the stream.
    fileprivate mutating func openAgent() -> CallID {
        let agent = connect()
        return call(agent, .prompts)
    }

    /// Launches `appID` in the foreground and authorizes it when in use through its first prompt.
    ///
    /// Returns the client and the `whenInUse` session that asked; `alwaysDecision` stays `undecided`.
    fileprivate mutating func launchAuthorized(
        _ appID: String,
        accuracy: PromptAccuracy = .full
    ) throws -> (ClientID, SessionID) {
        let app = launch(appID)
        let session = try created(app, .whenInUse)
        try #require(answer(appID, .allowWhileUsing, accuracy: accuracy) == nil)
        try #require(status(appID) == .authorizedWhenInUse)
        return (app, session)
    }

    /// Launches `appID` in the foreground with an `always` session and answers While Using (P1).
    fileprivate mutating func launchProvisional(_ appID: String) throws -> (ClientID, SessionID) {
        let app = launch(appID)
        let session = try created(app, .always)
        try #require(answer(appID, .allowWhileUsing) == nil)
        try #require(authorization(appID).provisional)
        return (app, session)
    }

    /// Creates a session and returns its id; the test stops if `CreateSession` failed.
    fileprivate mutating func created(
        _ client: ClientID,
        _ requirement: Requirement,
        purposeKey: String? = nil
    ) throws -> SessionID {
        let id = create(client, requirement, purposeKey: purposeKey)
        return try #require(id, "CreateSession failed: \(String(describing: last))")
    }
}
