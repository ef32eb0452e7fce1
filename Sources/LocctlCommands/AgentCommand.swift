import ArgumentParser
import JSON
import LocationProtocol
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// `locctl agent`: a prompt agent in the terminal, the way `systemd-tty-ask-password-agent` answers
/// password requests: each prompt is shown with the app's own words and answered by the person.
struct AgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Answer apps' location prompts in this terminal.",
        discussion: """
            Registers with locd as a prompt agent (io.locd.Admin.Prompts). Each prompt shows the \
            app, what it asks, its usage description and the options, numbered. Type a number or an \
            option name and Enter; on an authorization prompt that offers precise location, add \
            "precise" or "approximate" (for example "1 approximate"). A prompt answered elsewhere, \
            timed out or no longer needed is withdrawn and the next one is shown. Answers typed or \
            piped in before a prompt comes answer the prompts to come, in order. End of input (once \
            those answers are used) or Ctrl-C ends the agent with exit code 0. When locd restarts, \
            the agent waits for it and goes on.

            The agent answers your own apps' prompts (SEMANTICS H7), as any user may. --all-users, for \
            an administrator (a kiosk's agent), is offered every user's prompts instead; each prompt \
            of another user's app names that user, and the answer is that user's app's alone.

            --answer OPTION answers every prompt at once, for demos: the option if the prompt offers \
            it, else the closest one it does (allowWhileUsing falls back to allow and keepWhileUsing, \
            deny to keepWhileUsing, changeToAlways to allowWhileUsing and allow; on the prompt that asks whether \
            to keep Always, granting answers keepAlways and refusing changeToWhileUsing; the prompt of an app \
            with no window offers allowAlways, which every granting option answers).

            Example: locctl agent --answer allowWhileUsing --precise off
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(
        name: .long,
        help: ArgumentHelp("Answer every prompt with this option instead of asking.", valueName: "option")
    )
    var answer: AgentAnswer?

    @Option(
        name: .long,
        help: ArgumentHelp("With --answer: precise location on (full) or off (approximate).", valueName: "on|off")
    )
    var precise: Switch?

    @Flag(name: .long, help: "Answer every user's prompts, not only your own apps' (for administrators).")
    var allUsers = false

    func validate() throws {
        if precise != nil && answer == nil {
            throw ValidationError("--precise goes with --answer; interactively, type \"precise\" or \"approximate\".")
        }
    }

    func run() throws {
        endOnInterrupt()
        // Failures are the agent's to report: once at start, never while it waits for locd to come back.
        let path = connection.socketPath
        var agent = try PromptAgent(
            connect: { try VarlinkClient(path: path, timeout: 10) },
            parameters: allUsers ? ["everyone": .bool(true)] : [:],
            automatic: answer,
            precise: precise?.isOn
        )
        try agent.run()
    }

    /// The human option names, as the iOS dialogs word them.
    static let optionLabels: [String: String] = [
        "allowWhileUsing": "Allow While Using App",
        "allowOnce": "Allow Once",
        "allowAlways": "Always Allow",
        "deny": "Don't Allow",
        "keepWhileUsing": "Keep Only While Using",
        "changeToAlways": "Change to Always Allow",
        "allow": "Allow",
        "keepAlways": "Always Allow",
        "changeToWhileUsing": "Change to Only While Using",
    ]

    /// A prompt as the agent shows it, separate so it can be tested on a fixed prompt.
    /// - Parameter agentUser: the agent's own uid: a prompt of another user's app names that user (H7).
    static func render(
        _ prompt: WirePrompt,
        style: Style = .plain,
        agentUser: UInt32? = nil,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
        let prompt = WirePrompt(json: prompt.json.shownAsText) ?? prompt  // I16
        let app = prompt.appId
        let kind = prompt.kind
        let question =
            switch kind {
            case "authorization": "would like to use your location"
            case "alwaysUpgrade": "would like to use your location also when you are not using the app"
            case "temporaryFullAccuracy": "would like to use your precise location this time"
            case "alwaysReconfirm": "has been using your location in the background: keep allowing it always?"
            default: "asks about your location"
            }
        var out = style.paint("\(app) \(question)", .bold) + " (\(kind), prompt \(prompt.id))\n"
        if let user = prompt.user, user != agentUser {
            out += "  for user \(Users.describe(user, name: userName))\n"
        }
        out += "  \"\(prompt.usageDescription)\"\n"
        if let key = prompt.purposeKey { out += "  purpose: \(key)\n" }
        let options = prompt.options
        let width = options.map(\.count).max() ?? 0
        for (index, option) in options.enumerated() {
            let padding = String(repeating: " ", count: width - option.count)
            out += "  \(index + 1)) \(option)\(padding)  \(optionLabels[option] ?? "")\n"
        }
        if prompt.accuracyToggle && kind == "authorization" {
            let precise = prompt.defaultAccuracy == "reduced" ? "off" : "on"
            out += "  Precise location: \(precise) (add \"precise\" or \"approximate\" to your answer to choose)\n"
        }
        return out
    }
}
