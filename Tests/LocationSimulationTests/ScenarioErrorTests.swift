import LocationConfiguration
import LocationSimulation
import Testing

/// A scenario that cannot be read or run is one message naming the file, line and key, and what is allowed.
@Suite("Scenario errors")
struct ScenarioErrorTests {
    /// Two lines: the events written after it start on line 3.
    private static let app = """
        [apps."com.ex.maps"]
        NSLocationWhenInUseUsageDescription = "Shows you on the map"

        """

    private func issue(_ text: String) -> ConfigurationIssue? {
        do {
            _ = try Simulator.run(ScenarioParser.parse(text: text, file: "flow.toml"))
            return nil
        } catch {
            return error
        }
    }

    @Test("An unknown event names the event's index and line, and lists the events there are")
    func unknownEvent() throws {
        let found = try #require(
            issue(
                Self.app + """
                    [[events]]
                    at = 0.0
                    app = "com.ex.maps"
                    event = "launch"

                    [[events]]
                    at = 1.0
                    app = "com.ex.maps"
                    event = "teleport"
                    """
            )
        )
        #expect(found.file == "flow.toml")
        #expect(found.line == 11)
        #expect(found.key == "events[2].event")
        #expect(found.message.hasPrefix("unknown event \"teleport\"; allowed: launch, create-session,"))
        #expect(found.message.contains("services-off"))
    }

    @Test("An unknown key of an event is refused with the keys that event takes")
    func unknownKey() throws {
        let found = try #require(
            issue(
                Self.app + """
                    [[events]]
                    at = 0.0
                    app = "com.ex.maps"
                    event = "create-session"
                    authorisation = "always"
                    """
            )
        )
        #expect(found.line == 7)
        #expect(found.key == "events[1].authorisation")
        #expect(
            found.message
                == "unknown key for create-session; allowed: at, event, app, user, authorization, purpose-key, name"
        )
    }

    @Test("A value outside an event's choices lists them")
    func badChoice() throws {
        let found = try #require(
            issue(
                Self.app + """
                    [[events]]
                    at = 0.0
                    app = "com.ex.maps"
                    event = "create-session"
                    authorization = "sometimes"
                    """
            )
        )
        #expect(found.key == "events[1].authorization")
        #expect(found.message == "expected one of \"none\", \"whenInUse\", \"always\", found \"sometimes\"")
    }

    @Test("An event for an app with no manifest in the scenario says how to add one")
    func unknownApp() throws {
        let found = try #require(
            issue(
                Self.app + """
                    [[events]]
                    at = 0.0
                    app = "com.ex.other"
                    event = "launch"
                    """
            )
        )
        #expect(found.key == "events[1].app")
        #expect(
            found.message
                == "no manifest for com.ex.other: add [apps.\"com.ex.other\"]; the scenario's apps: com.ex.maps"
        )
    }

    @Test("M1: an inline manifest with a key of the wrong type is refused where it is written")
    func badManifest() throws {
        let found = try #require(
            issue(
                """
                [apps."com.ex.maps"]
                NSLocationWhenInUseUsageDescription = 42

                [[events]]
                at = 0.0
                app = "com.ex.maps"
                event = "launch"
                """
            )
        )
        #expect(found.line == 2)
        #expect(found.key == "apps.\"com.ex.maps\".NSLocationWhenInUseUsageDescription")
        #expect(found.message == "expected a string, found integer")
    }

    @Test("Configuration keys are read as locd.toml reads them: an out-of-range grace gets the same message")
    func badConfiguration() throws {
        let found = try #require(
            issue(
                """
                [lifecycle]
                background-grace = -1

                """ + Self.app + """
                    [[events]]
                    at = 0.0
                    app = "com.ex.maps"
                    event = "launch"
                    """
            )
        )
        #expect(found.line == 2)
        #expect(found.key == "lifecycle.background-grace")
        #expect(found.message == "expected a number of seconds > 0, found -1")
    }

    @Test("A daemon key that means nothing to a simulation is refused with the keys allowed")
    func daemonOnlyKey() throws {
        let found = try #require(issue("socket = \"/run/locd/io.locd\"\n" + Self.app))
        #expect(found.line == 1)
        #expect(found.key == "socket")
        #expect(
            found.message.hasPrefix("not used by a simulation; allowed at the top level: agent, until, apps, events")
        )
    }

    @Test("P8: with agent = false an answer is refused: prompts can only time out")
    func answerWithoutAgent() throws {
        let found = try #require(
            issue(
                "agent = false\n" + Self.app + """
                    [[events]]
                    at = 0.0
                    app = "com.ex.maps"
                    event = "answer"
                    answer = "allowOnce"
                    """
            )
        )
        #expect(found.key == "events[1]")
        #expect(found.message == "answer needs a prompt agent: remove agent = false, or let the prompt time out")
    }

    @Test("A call from an app that is not running names the event and says to launch it")
    func notRunning() throws {
        let found = try #require(
            issue(
                Self.app + """
                    [[events]]
                    at = 2.5
                    app = "com.ex.maps"
                    event = "create-session"
                    authorization = "whenInUse"
                    """
            )
        )
        #expect(found.line == 3, "the event's [[events]] header")
        #expect(found.key == "events[1]")
        #expect(found.message == "com.ex.maps is not running at 2.5 s: launch or relaunch it first")
    }

    @Test("A negative time, a missing event and no events at all are each refused")
    func missingPieces() throws {
        let negative = try #require(
            issue(Self.app + "[[events]]\nat = -1\napp = \"com.ex.maps\"\nevent = \"launch\"\n")
        )
        #expect(negative.key == "events[1].at")
        #expect(negative.message == "expected a number of seconds >= 0, found -1")

        let noKind = try #require(issue(Self.app + "[[events]]\nat = 1\napp = \"com.ex.maps\"\n"))
        #expect(noKind.key == "events[1]")
        #expect(noKind.message.hasPrefix("missing key event: one of launch,"))

        let none = try #require(issue(Self.app))
        #expect(none.message.hasPrefix("no [[events]]"))
    }

    @Test("Text that is not TOML is refused with its line, without trapping")
    func notTOML() throws {
        let found = try #require(issue(Self.app + "[[events]\nat = 0.0\n"))
        #expect(found.line == 3)
        #expect(found.message.hasPrefix("not valid TOML"))
    }
}
