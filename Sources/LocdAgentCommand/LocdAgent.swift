import ArgumentParser
import Foundation
import LocationAgent
import LocationClient
import Logging

/// `locd-agent`: the person's own prompt agent, which shows their apps' location prompts as desktop notifications
/// (SEMANTICS §16). Started by the `locd-agent` executable and by the multi-call binary run as `locd-agent`.
package struct LocdAgent: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "locd-agent",
        abstract: "Show your apps' location prompts as notifications, send your answers, and show what uses location.",
        discussion: """
            Runs in your graphical session as you (the user unit locd-agent.service, or the autostart entry \
            io.locd.Agent.desktop) and owns io.locd.Agent on the session bus: a second one exits at once. Each \
            prompt of your apps becomes a notification whose buttons answer it; closing it answers nothing, and \
            `locctl agent` can still answer. A notification server that shows no buttons gets one notice naming \
            `locctl agent`, which --terminal opens in a terminal; with no notification server at all the agent \
            waits for one and asks locd for nothing meanwhile.

            While any of your apps uses location, the agent shows which: in the tray as a location icon \
            (a StatusNotifierItem, where the session has an org.kde.StatusNotifierWatcher), its tooltip listing \
            the apps, or else as one quiet notification that stays until no app uses location. Apps using \
            location in the background under a While Using grant are called out. Clicking the icon, or the \
            notification's Settings, opens `locctl apps` in a terminal.
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The socket locd listens on.",
            discussion: "Default: $LOCD_SOCKET, else $XDG_RUNTIME_DIR/locd/io.locd when a user's locd listens there, "
                + "else /run/locd/io.locd.",
            valueName: "path"
        ),
        completion: .file()
    )
    var socket: String?

    @Flag(
        name: .long,
        help: "Where notifications show no buttons, open `locctl agent` in a terminal at the first prompt."
    )
    var terminal = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The command that runs the words after it in a terminal: for the settings, and with --terminal.",
            valueName: "command"
        )
    )
    var terminalCommand = "x-terminal-emulator -e"

    @Flag(name: .long, help: "Log every step, not only what changes.")
    var verbose = false

    package init() {}

    package func run() throws {
        let level: Logger.Level = verbose ? .debug : .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            // I16: the agent's lines carry app ids and names; escaped before they reach the log.
            return DisplayLogHandler(handler)
        }
        let environment = ProcessInfo.processInfo.environment
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("locctl").path
        let shell = AgentShell(
            configuration: .init(
                socketPath: socket ?? DefaultSocket.path(environment: environment),
                terminal: terminalCommand.split(separator: " ").map(String.init),
                opensTerminal: terminal,
                locctl: FileManager.default.isExecutableFile(atPath: beside) ? beside : "locctl",
                applicationDirectories: AgentShell.applicationDirectories(environment: environment),
                environment: environment
            ),
            logger: Logger(label: "locd-agent")
        )
        do {
            try shell.run()
        } catch {
            FileHandle.standardError.write(Data("locd-agent: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}
