import ArgumentParser
import Foundation
import GlobalExecutor
import LocationGeoClue
import LogLevelArgument
import Logging
import NIOCore
import NIOPosix
import SubordinateRanges
import SystemdSupport

/// `locd-geoclue`: GeoClue2's D-Bus API for existing Linux apps, answered from locd's sessions. Thin: options in,
/// the bridge out. Started by the `locd-geoclue` executable and by the multi-call binary run as `locd-geoclue`.
package struct LocdGeoClue: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "locd-geoclue",
        abstract: "Serve org.freedesktop.GeoClue2 on the system bus from locd's location sessions.",
        discussion: """
            Each GeoClue client's Start becomes a whenInUse session of its app, decided by locd (prompts, \
            grants, approximate location), and its updates become Location objects. The app is the one \
            the client's process is (Flatpak, snap, systemd unit), else the client's DesktopId; locd-geoclue \
            speaks for that process as a broker, so it must run as the user of a [[broker]] of locd.toml, and locd checks the \
            app's manifest against the client's process. The bus is $DBUS_SYSTEM_BUS_ADDRESS, else the system bus. locd's socket is \
            --socket, else $LOCD_SOCKET, else the default locctl and apps use. Exit codes: 0 stopped by \
            SIGTERM or SIGINT, 1 the bus could not be served (another owner of the name, or the bus went away), 64 \
            an --agent-executable that is not ID=PATH, 78 --geoclue-config names a file that cannot be read.
            """,
        version: "0.1.0"
    )

    @Option(name: .long, help: "The socket locd listens on.", completion: .file())
    var socket: String?

    @Option(
        name: .customLong("geoclue-config"),
        help: """
            GeoClue's geoclue.conf (with the conf.d/ beside it): when it writes an [agent] whitelist, only those \
            GeoClue agents are taken. Its unit names /etc/geoclue/geoclue.conf.
            """,
        completion: .file()
    )
    var geoClueConfig: String?

    @Option(
        name: .customLong("agent-executable"),
        help: ArgumentHelp(
            """
            With an [agent] whitelist, AddAgent(ID) is taken only from a process running PATH (links resolved at \
            start). Repeat for more programs; the options of an ID replace its built-in programs (gnome-shell \
            /usr/bin/gnome-shell, geoclue-demo-agent /usr/libexec/geoclue-2.0/demos/agent, sm.puri.Phosh \
            /usr/libexec/phosh).
            """,
            valueName: "id=path"
        )
    )
    var agentExecutables: [String] = []

    @Option(
        name: .customLong("subordinate-uids"),
        help: """
            The ranges of subordinate uids (/etc/subuid's format): a peer's uid in a user's range counts against \
            that user's clients, agents and prompts. "" for none. Read at start.
            """,
        completion: .file()
    )
    var subordinateUIDs = "/etc/subuid"

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    package init() {}

    package func run() throws {
        // Swift concurrency (each Start's run, the locd connections' tasks) runs on the one event loop that carries
        // those connections, not on libdispatch's pool: a reply from locd resumes its task on the thread that read
        // it, with no hop to another (the bus has a thread of its own). Installed before any task starts.
        NIOSingletons.groupLoopCountSuggestion = 1
        GlobalExecutor.takeOver()
        let level = logLevel
        let journal = Systemd.runningUnderSystemd(environment: ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap { Systemd.makeLogHandler(label: $0, underSystemd: journal, logLevel: level) }
        let logger = Logger(label: "locd-geoclue")
        var whitelist: AgentWhitelist?
        var executables: [String: [String]] = [:]
        for value in agentExecutables {
            guard let (id, path) = AgentWhitelist.option(value) else {
                logger.critical(
                    "--agent-executable \(value): write ID=PATH with an absolute PATH (gnome-shell=/usr/bin/gnome-shell)"
                )
                throw ExitCode(64)
            }
            executables[id, default: []].append(path)
        }
        if let geoClueConfig {
            do {
                whitelist = try AgentWhitelist.load(main: geoClueConfig, executables: executables)
            } catch {
                logger.critical("\(error)")
                throw ExitCode(78)
            }
            if let whitelist {
                // G34: each agent with the program it must run, or none installed (then it is refused).
                let taken = whitelist.ids.sorted().map { id in
                    let programs = whitelist.resolvedExecutables[id]?.sorted() ?? []
                    return "\(id) (\(programs.isEmpty ? "no program installed" : programs.joined(separator: ", ")))"
                }
                logger.info("GeoClue agents taken: \(taken.joined(separator: ", ")) (\(whitelist.file))")
            }
        }
        // H9: each uid of a user's range counts against that user's bounds; a line that cannot be read is logged, and
        // so is each account the system lists inside a range (it counts as itself).
        var (subordinateIDs, skipped) =
            subordinateUIDs.isEmpty ? (SubordinateIDs(), []) : SubordinateIDs.read(file: subordinateUIDs)
        if !subordinateIDs.isEmpty { skipped += subordinateIDs.admit(SystemAccounts.listed()) }
        for line in skipped { logger.warning("\(line)") }
        do {
            try GeoClueBridge(
                socketPath: socket,
                agentWhitelist: whitelist,
                subordinateIDs: subordinateIDs,
                logger: logger
            ).run()
        } catch {
            logger.critical("\(error)")
            throw ExitCode.failure
        }
    }
}
