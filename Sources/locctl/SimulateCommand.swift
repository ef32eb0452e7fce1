import ArgumentParser
import LocationConfiguration
import LocationSimulation

/// `locctl simulate SCENARIO.toml`: a flow run through the session rules in virtual time, with no daemon.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a scenario through the session rules in virtual time and print its timeline (no daemon).",
        discussion: """
            A scenario is a TOML file:

              agent = true              # a prompt agent is connected (default); false: prompts can only time out
              until = 30.0              # when virtual time stops (default: once no deadline is left)
              restricted-apps = []      # and allow-unknown-apps, [lifecycle], [limits]: as in locd.toml
              [lifecycle]
              background-grace = 10.0

              [apps."com.example.maps"] # a manifest, inline, with Apple's keys (id may be left out) ...
              NSLocationWhenInUseUsageDescription = "Shows where you are."
              [apps]                    # ... or a manifest file, relative to the scenario
              "com.example.fitness" = "../apps.d/com.example.fitness.toml"

              [[events]]                # at = seconds from the start; the same moment: file order
              at = 0.0
              app = "com.example.maps"
              event = "create-session"
              authorization = "whenInUse"
              name = "map"

            Events and their keys (besides at, event, and app for the events of an app):
              launch [state]            a process starts and says Hello (state foreground|background)
              create-session authorization [purpose-key] [name]
              invalidate-session name
              answer answer [accuracy]  the agent answers the app's prompt on screen
              background, foreground    the app moves (SetAppState)
              terminate                 the process dies: its connection closes without Goodbye
              relaunch [state] [resume] a new process says Hello and resumes its lingering sessions (resume =
                                        true, the default)
              goodbye                   the process says Goodbye and exits
              request-authorization authorization (whenInUse|always)
              request-temporary-full-accuracy purpose-key
              begin-background-activity [name]
              live-updates [name]       a LiveUpdates stream (an implicit session unless an explicit one exists)
              set-authorization [setting] [precise]   setting: never|ask-next-time|while-using|always
              location-button           the person presses a LocationButton in the app
              services-off, services-on   the global location switch (no app)
              fix latitude longitude [accuracy], fix-lost   the provider (no app)

            The timer deadlines the rules set (background grace, relaunch window, prompt timeout) fire at their
            exact instants between events. The output lists, per moment: the events, the apps' state and
            whether they are in use, authorization (status and Settings label), prompts raised and resolved
            with their options, each session's state and diagnostic flags as they change (+set, -cleared),
            the provider, and errors returned to calls. The same scenario always prints the same bytes.
            Exit codes: 0 success, 1 a scenario that cannot be read or run (file, line and key are printed).
            Examples are in config/scenarios/.
            """
    )

    @Argument(help: "The scenario file (TOML).")
    var scenario: String

    @Flag(name: .long, help: "Print the timeline as a JSON array of entries with stable field names.")
    var json = false

    func run() throws {
        do throws(ConfigurationIssue) {
            let parsed = try ScenarioParser.parse(file: scenario)
            let timeline = try Simulator.run(parsed)
            print(json ? TimelineFormat.json(timeline) : TimelineFormat.table(timeline), terminator: "")
        } catch {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}
