import Foundation
import LocationSimulation
import Testing

/// Every scenario in `config/scenarios/` runs and prints exactly its expected timeline, and tells the story of its
/// seed: the facts each story turns on are checked here too, not only the expected files.
@Suite("Shipped scenarios")
struct ShippedScenarioTests {
    /// Runs a shipped scenario and compares its table and JSON with `Expected/<name>.txt` and `.json`.
    private func run(_ file: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [TimelineEntry] {
        let path = Golden.scenarios.appendingPathComponent(file).path
        let timeline = try Simulator.run(ScenarioParser.parse(file: path))
        let stem = String(file.dropLast(".toml".count))
        Golden.check(TimelineFormat.table(timeline), against: stem + ".txt", sourceLocation: sourceLocation)
        Golden.check(
            TimelineFormat.json(timeline, pretty: true),
            against: stem + ".json",
            sourceLocation: sourceLocation
        )
        return timeline
    }

    /// The authorization lines of an app: time, status and Settings label.
    private func authorization(_ timeline: [TimelineEntry], _ app: String) -> [String] {
        timeline.filter { $0.app == app && $0.subject == .authorization }.map {
            "\(Simulator.seconds($0.time)) \($0.status ?? "?") (\($0.settingsLabel ?? "?"))"
        }
    }

    /// The lines of one session: time and what happened.
    private func session(_ timeline: [TimelineEntry], _ name: String) -> [String] {
        timeline.filter { $0.subject == .session && $0.name == name }.map { "\(Simulator.seconds($0.time)) \($0.what)" }
    }

    @Test(
        "P2, L5: seed 000: Allow Once holds while in use, ends with the background grace, and the next use asks again"
    )
    func seed000AllowOnce() throws {
        let timeline = try run("000-allow-once.toml")
        let maps = "com.example.maps"
        #expect(
            authorization(timeline, maps) == [
                "3.0 authorizedWhenInUse (askNextTime)", "30.0 notDetermined (askNextTime)",
                "42.0 authorizedWhenInUse (whileUsing)",
            ]
        )
        #expect(timeline.first { $0.subject == .authorization }?.oneTime == true)
        let raised = timeline.filter { $0.subject == .prompt && $0.resolution == nil }
        #expect(raised.map(\.time) == [1.0, 40.0], "asked again at the next start of use")
        #expect(timeline.first { $0.subject == .app && $0.inUse == false }?.time == 30.0, "background at 20.0 + 10 s")
        #expect(
            session(timeline, "map").suffix(3) == [
                "30.0 limited +insufficientlyInUse",
                "40.0 limited +authorizationRequestInProgress -insufficientlyInUse",
                "42.0 active -authorizationRequestInProgress",
            ]
        )
    }

    @Test("A2, P1, P2, P3, L5: seed 001: each request and choice gives the table's status and Settings label")
    func seed001Table() throws {
        let timeline = try run("001-request-table.toml")
        let expected: [(String, [String])] = [
            ("row1-always-while-using", ["2.0 authorizedAlways (whileUsing)"]),
            ("row2-always-once", ["2.0 authorizedWhenInUse (askNextTime)", "20.0 notDetermined (askNextTime)"]),
            ("row3-always-deny", ["2.0 denied (never)"]),
            ("row4-wheninuse-while-using", ["2.0 authorizedWhenInUse (whileUsing)"]),
            ("row5-wheninuse-once", ["2.0 authorizedWhenInUse (askNextTime)", "20.0 notDetermined (askNextTime)"]),
            ("row6-wheninuse-deny", ["2.0 denied (never)"]),
        ]
        for (app, lines) in expected {
            #expect(authorization(timeline, "com.example." + app) == lines, "\(app)")
        }
        let row1 = timeline.first { $0.app == "com.example.row1-always-while-using" && $0.subject == .authorization }
        #expect(row1?.provisional == true)
    }

    @Test("S7, P5, P6: seed 001: asking for Always after While Using shows the upgrade at once, after Allow Once never")
    func seed001Upgrade() throws {
        let timeline = try run("001-request-table.toml")
        func prompts(_ app: String) -> [String] {
            timeline.filter { $0.app == "com.example." + app && $0.subject == .prompt && $0.resolution == nil }
                .map { "\(Simulator.seconds($0.time)) \($0.promptKind ?? "?")" }
        }
        #expect(prompts("upgrade-after-while-using") == ["1.0 authorization", "5.0 alwaysUpgrade"])
        #expect(prompts("no-upgrade-after-once") == ["1.0 authorization"])
        #expect(
            authorization(timeline, "com.example.upgrade-after-while-using") == [
                "2.0 authorizedWhenInUse (whileUsing)", "6.0 authorizedAlways (always)",
            ]
        )
    }

    @Test("S8, P7, D6, P11: seed 002: approximate by default, precise for a while, and a LocationButton grant")
    func seed002Accuracy() throws {
        let timeline = try run("002-approximate-accuracy.toml")
        let weather = "com.example.weather"
        let first = try #require(timeline.first { $0.app == weather && $0.subject == .prompt })
        #expect(first.defaultAccuracy == "reduced")
        #expect(first.accuracyToggle == false)
        let grants = timeline.filter { $0.app == weather && $0.subject == .authorization }
        #expect(grants.map(\.accuracy) == ["reducedAccuracy", "reducedAccuracy", "reducedAccuracy"])
        #expect(grants.map(\.temporaryFullAccuracy) == [false, true, false])
        #expect(grants.map(\.time) == [2.0, 7.0, 18.0])
        #expect(
            session(timeline, "radar").dropFirst() == [
                "3.0 limited +authorizationRequestInProgress",
                "4.0 limited +fullAccuracyDenied -authorizationRequestInProgress",
                "6.0 limited +authorizationRequestInProgress -fullAccuracyDenied",
                "7.0 active -authorizationRequestInProgress",
                "18.0 limited +insufficientlyInUse +fullAccuracyDenied",
            ]
        )
        #expect(
            authorization(timeline, "com.example.notes") == [
                "2.0 denied (never)", "20.0 authorizedWhenInUse (askNextTime)", "32.0 notDetermined (askNextTime)",
            ]
        )
    }

    @Test(
        "L3, L4, S10, S14, D1: seed 003: sessions outlive their process, a relaunch adopts them, denial sets both flags"
    )
    func seed003Relaunch() throws {
        let timeline = try run("003-termination-relaunch.toml")
        #expect(session(timeline, "feed").last == "5.0 ended: its stream's connection closed (S10)")
        #expect(
            session(timeline, "map").suffix(3) == [
                "5.0 lingering until 15.0 s (L3)",
                "12.0 lingering until 17.0 s: a new process of its app said Hello (L4)",
                "13.0 ended: covered by map2 (L4)",
            ]
        )
        #expect(session(timeline, "nav").last == "17.0 ended: its lingering deadline passed (L3, L4)")
        let map2 = session(timeline, "map2")
        #expect(map2.contains("25.0 resumed (S14)"))
        #expect(map2.contains("27.0 limited +authorizationDenied +authorizationDeniedGlobally"))
        #expect(map2.last == "41.0 ended: its lingering deadline passed (L3, L4)")
        let states = timeline.filter { $0.subject == .app && $0.state != nil }.map {
            "\(Simulator.seconds($0.time)) \($0.state!)"
        }
        #expect(
            states == [
                "0.0 foreground", "5.0 terminated", "12.0 foreground", "20.0 terminated", "25.0 foreground",
                "31.0 terminated", "41.0 notRunning",
            ]
        )
        #expect(
            timeline.first { $0.subject == .app && $0.inUse == false }?.time == 41.0,
            "in use while terminated (L2)"
        )
    }

    @Test(
        "P1, P4, S12, D4, P12: seeds 004/000: background use needs a background activity or Always; the upgrade asks once; Always is re-confirmed"
    )
    func seed004Background() throws {
        let timeline = try run("004-background-always.toml")
        let maps = "com.example.maps"
        #expect(
            authorization(timeline, maps) == [
                "2.0 authorizedAlways (whileUsing)", "17.0 authorizedAlways (always)",
                "80.0 authorizedWhenInUse (whileUsing)",
            ]
        )
        let reconfirm = try #require(timeline.first { $0.app == maps && $0.promptKind == "alwaysReconfirm" })
        #expect(reconfirm.time == 77.0, "60 s of background use under Always, counted from 17.0 s")
        #expect(timeline.filter { $0.promptKind == "alwaysReconfirm" && $0.app != maps }.isEmpty)
        #expect(timeline.first { $0.app == maps && $0.subject == .authorization }?.provisional == true)
        let upgrade = try #require(timeline.first { $0.app == maps && $0.promptKind == "alwaysUpgrade" })
        #expect(upgrade.time == 15.0, "raised in the background when the grace ends")
        #expect(
            session(timeline, "trip").suffix(2) == [
                "2.0 active -authorizationRequestInProgress",
                "80.0 limited +insufficientlyInUse +alwaysAuthorizationDenied",
            ]
        )
        let refused = try #require(timeline.first { $0.subject == .error })
        #expect(refused.app == "com.example.weather")
        #expect(refused.error == "io.locd.App.BackgroundActivityUnavailable")
        #expect(session(timeline, "forecast").last == "15.0 limited +insufficientlyInUse")
        let notInUse = timeline.filter { $0.subject == .app && $0.inUse == false }.compactMap(\.app)
        #expect(notInUse == ["com.example.maps", "com.example.weather"], "Fitness stays in use with its activity")
        #expect(session(timeline, "workout").last == "2.0 active -authorizationRequestInProgress")
    }

    @Test("H1, H6, H5: two people, one app: each answer and each in-use is that person's; a user's switch is theirs")
    func twoPeople() throws {
        let timeline = try run("100-two-people.toml")
        let alice = "com.example.maps (alice)"
        let bob = "com.example.maps (bob)"
        #expect(
            authorization(timeline, alice) == ["2.0 denied (never)", "23.0 denied (never)"],
            "Alice's deny is hers; the administrator's approximate narrows it no further"
        )
        #expect(
            authorization(timeline, bob) == [
                "5.0 authorizedWhenInUse (whileUsing)", "23.0 authorizedWhenInUse (whileUsing)",
            ]
        )
        // Bob was asked for his own app although Alice had answered for hers.
        let prompts = timeline.filter { $0.subject == .prompt && $0.resolution == nil }.compactMap(\.app)
        #expect(prompts == [alice, bob])
        // Bob's grace ended on its own clock while Alice's Maps stayed in the foreground.
        let notInUse = timeline.filter { $0.subject == .app && $0.inUse == false }.map {
            "\(Simulator.seconds($0.time)) \($0.app ?? "-")"
        }
        #expect(notInUse == ["16.0 \(bob)"])
        // Bob's own switch denied his session globally, and no line of Alice's changed with it.
        #expect(
            session(timeline, "bob's map").contains("21.0 limited +authorizationDenied +authorizationDeniedGlobally")
        )
        #expect(!timeline.contains { $0.app == alice && Simulator.seconds($0.time) == "21.0" })
        #expect(timeline.last { $0.subject == .authorization && $0.app == bob }?.accuracy == "reducedAccuracy")
    }

    @Test("Every shipped scenario has expected output, and every expected file a scenario")
    func everyScenarioChecked() {
        let scenarios = Set(Golden.scenarioNames.map { String($0.dropLast(".toml".count)) })
        #expect(scenarios.count >= 5)
        let tested: Set<String> = [
            "000-allow-once", "001-request-table", "002-approximate-accuracy", "003-termination-relaunch",
            "004-background-always", "100-two-people",
        ]
        #expect(scenarios == tested, "add a test for each new scenario in config/scenarios")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: Golden.expected.path)) ?? []
        let expected = Set(files.filter { !$0.hasPrefix(".") })
        #expect(
            expected == Set(scenarios.flatMap { [$0 + ".txt", $0 + ".json"] }),
            "no expected file without a scenario"
        )
    }
}
