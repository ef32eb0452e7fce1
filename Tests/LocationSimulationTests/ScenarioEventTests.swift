import LocationConfiguration
import LocationSimulation
import Testing

/// Events the shipped scenarios do not use, and manifests named by path.
@Suite("Scenario events")
struct ScenarioEventTests {
    private func run(_ text: String, directory: String = ".") throws(ConfigurationIssue) -> [TimelineEntry] {
        try Simulator.run(ScenarioParser.parse(text: text, file: "flow.toml", directory: directory))
    }

    private func lines(_ timeline: [TimelineEntry], session name: String) -> [String] {
        timeline.filter { $0.subject == .session && $0.name == name }.map { "\(Simulator.seconds($0.time)) \($0.what)" }
    }

    private static let maps = """
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

        [[events]]
        at = 1.0
        app = "com.ex.maps"
        event = "create-session"
        authorization = "whenInUse"
        name = "extra"

        """

    @Test("L3: goodbye ends the process's sessions at once; nothing lingers and the app is not running")
    func goodbye() throws {
        let timeline = try run(Self.maps + "[[events]]\nat = 3.0\napp = \"com.ex.maps\"\nevent = \"goodbye\"\n")
        #expect(lines(timeline, session: "map").last == "3.0 ended: the process said goodbye (L3)")
        #expect(lines(timeline, session: "extra").last == "3.0 ended: the process said goodbye (L3)")
        #expect(!timeline.contains { $0.state == "lingering" })
        #expect(timeline.last { $0.subject == .app && $0.state != nil }?.state == "notRunning")
        #expect(timeline.last?.time == 3.0, "no deadline is left after a goodbye")
    }

    @Test("S3: invalidate-session ends the named session only, and a second invalidation answers SessionInvalidated")
    func invalidate() throws {
        let twice = """
            [[events]]
            at = 2.0
            app = "com.ex.maps"
            event = "invalidate-session"
            name = "map"

            [[events]]
            at = 2.5
            app = "com.ex.maps"
            event = "invalidate-session"
            name = "map"
            """
        let timeline = try run(Self.maps + twice)
        #expect(lines(timeline, session: "map").last == "2.0 ended: invalidated (S3)")
        #expect(lines(timeline, session: "extra") == ["1.0 created explicit whenInUse", "1.0 active"])
        let error = try #require(timeline.first { $0.subject == .error })
        #expect(error.time == 2.5)
        #expect(error.error == "io.locd.App.SessionInvalidated")
    }

    @Test("A1, A3: set-authorization as a Settings screen would, and restricted-apps overlaying it")
    func settings() throws {
        let timeline = try run(
            "restricted-apps = [\"com.ex.kid\"]\n[apps.\"com.ex.kid\"]\nNSLocationWhenInUseUsageDescription = \"x\"\n"
                + Self.maps + """
                    [[events]]
                    at = 2.0
                    app = "com.ex.maps"
                    event = "set-authorization"
                    setting = "never"

                    [[events]]
                    at = 2.0
                    app = "com.ex.kid"
                    event = "set-authorization"
                    setting = "always"
                    """
        )
        let maps = timeline.filter { $0.app == "com.ex.maps" && $0.subject == .authorization }
        #expect(maps.map(\.status) == ["authorizedWhenInUse", "denied"])
        #expect(lines(timeline, session: "map").last == "2.0 limited +authorizationDenied")
        #expect(!timeline.contains { $0.app == "com.ex.kid" && $0.subject == .authorization }, "restricted stays put")
    }

    @Test("M1: a manifest given by path is read relative to the scenario, and its id must match its key")
    func manifestByPath() throws {
        let shipped = Golden.root.appendingPathComponent("config/scenarios").path
        let timeline = try run(
            """
            apps."com.example.fitness" = "../apps.d/com.example.fitness.toml"

            [[events]]
            at = 0.0
            app = "com.example.fitness"
            event = "launch"

            [[events]]
            at = 0.0
            app = "com.example.fitness"
            event = "request-authorization"
            authorization = "always"
            """,
            directory: shipped
        )
        let error = try #require(timeline.first { $0.subject == .error })
        #expect(error.error == "io.locd.App.UsageDescriptionMissing")
        #expect(
            error.message
                == "add NSLocationAlwaysAndWhenInUseUsageDescription to ../apps.d/com.example.fitness.toml, then reload locd"
        )

        do {
            _ = try run("apps.\"com.ex.other\" = \"../apps.d/com.example.fitness.toml\"\n", directory: shipped)
            Issue.record("a manifest for another app was accepted")
        } catch {
            #expect(error.key == "apps.\"com.ex.other\"")
            #expect(error.message == "the manifest is for com.example.fitness, not com.ex.other")
        }
    }
}
