import LocationConfiguration
import LocationSimulation
import Testing

/// Deadlines fire at the instants the core arms them for, between events, with no waiting.
@Suite("Virtual time")
struct VirtualTimeTests {
    private func run(_ text: String) throws -> [TimelineEntry] {
        try Simulator.run(ScenarioParser.parse(text: text, file: "flow.toml"))
    }

    private static let authorizedMaps = """
        [lifecycle]
        background-grace = 3.5
        relaunch-window = 7.0
        prompt-timeout = 30.0

        [apps."com.ex.maps"]
        NSLocationWhenInUseUsageDescription = "Shows you on the map"

        [[events]]
        at = 0.0
        app = "com.ex.maps"
        event = "launch"

        [[events]]
        at = 0.0
        app = "com.ex.maps"
        event = "set-authorization"
        setting = "while-using"

        [[events]]
        at = 1.0
        app = "com.ex.maps"
        event = "create-session"
        authorization = "whenInUse"
        name = "map"

        """

    @Test("L2, D4: the background grace expires between events, at its own instant")
    func graceExpires() throws {
        let timeline = try run(
            Self.authorizedMaps + """
                [[events]]
                at = 2.0
                app = "com.ex.maps"
                event = "background"

                [[events]]
                at = 100.0
                app = "com.ex.maps"
                event = "foreground"
                """
        )
        let notInUse = try #require(timeline.first { $0.subject == .app && $0.inUse == false })
        #expect(notInUse.time == 5.5, "background at 2.0 s + a grace of 3.5 s")
        let limited = try #require(timeline.first { $0.name == "map" && $0.state == "limited" })
        #expect(limited.time == 5.5)
        #expect(limited.added == ["insufficientlyInUse"])
        let active = timeline.filter { $0.name == "map" && $0.state == "active" }.map(\.time)
        #expect(active == [1.0, 100.0])
    }

    @Test("L3: the relaunch window closes at its instant and the lingering session ends then")
    func relaunchWindowCloses() throws {
        let timeline = try run(
            Self.authorizedMaps + """
                [[events]]
                at = 4.0
                app = "com.ex.maps"
                event = "terminate"
                """
        )
        let lingering = try #require(timeline.first { $0.name == "map" && $0.state == "lingering" })
        #expect(lingering.time == 4.0)
        let ended = try #require(timeline.first { $0.name == "map" && $0.state == "ended" })
        #expect(ended.time == 11.0, "terminated at 4.0 s + a window of 7.0 s")
        #expect(ended.reason == "its lingering deadline passed (L3, L4)")
        let notRunning = try #require(timeline.last { $0.subject == .app && $0.state != nil })
        #expect(notRunning.state == "notRunning")
        #expect(notRunning.time == 11.0)
    }

    /// Maps, launched at 0, asks for a When In Use session at 2 s: a prompt with nobody to answer it.
    private static let mapsAsksAtTwo = """

        [apps."com.ex.maps"]
        NSLocationWhenInUseUsageDescription = "Shows you on the map"

        [[events]]
        at = 0.0
        app = "com.ex.maps"
        event = "launch"

        [[events]]
        at = 2.0
        app = "com.ex.maps"
        event = "create-session"
        authorization = "whenInUse"
        """

    @Test("P8: a prompt nobody answers is dismissed when prompt-timeout passes, after the last event")
    func promptTimesOut() throws {
        let timeline = try run(
            """
            agent = false
            [lifecycle]
            prompt-timeout = 45.0
            agent-wait = 600.0
            """ + Self.mapsAsksAtTwo
        )
        let prompts = timeline.filter { $0.subject == .prompt }
        #expect(prompts.map(\.time) == [2.0, 47.0])
        #expect(prompts.map(\.resolution) == [nil, "dismissed"])
        #expect(prompts.first?.options == ["allowWhileUsing", "allowOnce", "deny"])
    }

    @Test("P14: with no agent connected, a prompt is dismissed after the daemon's default agent-wait of 5 s")
    func promptWithNoAgent() throws {
        let timeline = try run(
            """
            agent = false
            [lifecycle]
            prompt-timeout = 45.0
            """ + Self.mapsAsksAtTwo
        )
        let prompts = timeline.filter { $0.subject == .prompt }
        #expect(prompts.map(\.time) == [2.0, 7.0])
        #expect(prompts.map(\.resolution) == [nil, "unanswered"])
        #expect(prompts.last?.what.contains("no agent to ask within agent-wait (P14)") == true)
    }

    @Test("until stops virtual time: a prompt timeout after it never fires")
    func untilStops() throws {
        let timeline = try run("until = 40.0" + Self.mapsAsksAtTwo)
        #expect(timeline.filter { $0.subject == .prompt }.map(\.time) == [2.0])
        #expect(timeline.allSatisfy { $0.time <= 40.0 })
    }

    @Test("L6: the same scenario gives the same table and JSON, byte for byte")
    func deterministic() throws {
        let text = Self.authorizedMaps + "[[events]]\nat = 2.0\napp = \"com.ex.maps\"\nevent = \"terminate\"\n"
        let first = try run(text)
        let second = try run(text)
        #expect(TimelineFormat.table(first) == TimelineFormat.table(second))
        #expect(TimelineFormat.json(first) == TimelineFormat.json(second))
        #expect(first.count > 5)
    }
}
