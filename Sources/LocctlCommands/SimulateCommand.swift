import ArgumentParser
import LocationConfiguration
import LocationSimulation

/// `locctl simulate SCENARIO.toml`: a flow run through the session rules in virtual time, with no daemon.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a scenario through the session rules in virtual time and print its timeline (no daemon).",
        discussion: """
            A scenario is a TOML file (examples: config/scenarios/):

              agent = true          # a prompt agent is connected (the default);
                                    # false: prompts can only time out
              until = 60.0          # when virtual time stops (default: once no
                                    # deadline is left)
              restricted-apps = []  # allow-unknown-apps, [lifecycle], [limits]:
              [lifecycle]           # the keys of locd.toml, same checks
              background-grace = 10.0

              [apps."com.example.maps"]   # a manifest with Apple's keys
              NSLocationWhenInUseUsageDescription = "Shows where you are."
              # or a manifest file, relative to the scenario:
              # apps."com.example.fitness" = "../apps.d/com.example.fitness.toml"

              [[events]]            # at: seconds from the start; events at
              at = 1.0              # the same moment run in the file's order
              app = "com.example.maps"
              event = "create-session"
              authorization = "whenInUse"
              name = "map"

            Events, with their keys besides at, event and app:
              launch [state]        a process says Hello (foreground|background)
              create-session authorization [purpose-key] [name]
                                    authorization: none|whenInUse|always
              invalidate-session name
              answer answer [accuracy]
                                    the agent answers the app's prompt on screen
              background, foreground
                                    the app moves (SetAppState)
              terminate             the process dies: no Goodbye
              relaunch [state] [resume]
                                    a new process says Hello and resumes its
                                    lingering sessions (resume = true, default)
              goodbye               the process says Goodbye and exits
              request-authorization authorization    (whenInUse|always)
              request-temporary-full-accuracy purpose-key
              begin-background-activity [name]
              live-updates [name]   a LiveUpdates stream
              set-authorization [setting] [precise]
                                    never|ask-next-time|while-using|always
              location-button       a LocationButton press
              services-off, services-on    (no app)
              fix latitude longitude [accuracy], fix-lost    (no app)

            Deadlines (background grace, relaunch window, prompt timeout)
            fire at their exact instants between events. The output lists the
            events, app states and use, authorization (status and Settings
            label), prompts with their options, each session's state and
            diagnostic flags as they change (+set -cleared), the provider, and
            errors returned to calls. The same scenario prints the same bytes.
            Exit codes: 0 success; 1 a scenario that cannot be read or run
            (file, line and key are printed).
            """
    )

    @Argument(help: "The scenario file (TOML).", completion: .file(extensions: ["toml"]))
    var scenario: String

    @Flag(name: .long, help: "Print the timeline as a JSON array of entries with stable field names, on one line.")
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
