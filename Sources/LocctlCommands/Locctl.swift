import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// `locctl`: talks to locd the way `systemctl` and `loginctl` talk to their daemons. Started by the `locctl`
/// executable and by the multi-call binary run as `locctl`.
package struct Locctl: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "locctl",
        abstract: "Inspect and control locd, the location-session daemon.",
        discussion: """
            Global options, before or after the command:
              --socket <path>     The socket locd listens on.
              --json[=FORMAT]     Replies as JSON: short (one line), pretty or off.
              --no-legend         No table headers and footers.
              --no-pager          Accepted; locctl never pages.

            Exit codes: 0 success; 1 failure, including a command line locctl cannot parse; 4 no such \
            object (an app, session or prompt that does not exist). A failure prints \
            "locctl: <Varlink error name>: <what to do>" on standard error.

            The socket is --socket, else $LOCD_SOCKET, else /run/locd/io.locd as root or \
            $XDG_RUNTIME_DIR/locd/io.locd as a user.

            Read commands take --json: they then print the Admin reply's value on one line, with the \
            field names of io.locd.Admin (PROTOCOL.md), which stay stable across releases, in \
            alphabetical order; absent optional fields are left out. As systemctl's, --json=short is \
            --json, --json=pretty prints one field a line, indented, and --json=off no JSON. Human output is \
            coloured only on a terminal and never when NO_COLOR is set; --no-legend drops the \
            header and footer of tables. --socket, --json and --no-legend may come before the command \
            or after it, as systemctl's options do; --no-pager is accepted anywhere and changes nothing, \
            since locctl never pages.

            Every local user may run locctl (SEMANTICS H4). An ordinary user sees and changes their own \
            apps (apps, app, sessions, session, watch, auth, app-state, agent) and turns location \
            services off or on for themselves (services). An administrator (root, locd's user or a \
            member of locd's admin group) sees every user's apps, names one user's with --user \
            NAME|UID, sets an app for every user (auth without --user), turns location services off \
            for the machine, and alone may run reload, forget, location-button and agent --all-users.

            Shell completions: locctl --generate-completion-script bash|zsh|fish.
            """,
        version: "0.1.0",
        subcommands: [
            StatusCommand.self,
            AppsCommand.self,
            AppCommand.self,
            SessionsCommand.self,
            SessionCommand.self,
            WatchCommand.self,
            AuthCommand.self,
            AppStateCommand.self,
            ServicesCommand.self,
            LocationButtonCommand.self,
            ForgetCommand.self,
            ReloadCommand.self,
            AgentCommand.self,
            SimulateCommand.self,
        ],
        defaultSubcommand: StatusCommand.self
    )

    /// The command line as swift-argument-parser reads it: global options given before the command
    /// moved after it (`GlobalOptions`).
    static func commandLine(_ arguments: [String]) -> [String] {
        let commands = configuration.subcommands.map { $0._commandName }
        let defaultCommand = configuration.defaultSubcommand?._commandName ?? "status"
        return GlobalOptions.rearranged(arguments, commands: Set(commands), defaultCommand: defaultCommand)
    }

    /// What to say of a command line whose first word is no command: argument-parser would take it for an argument
    /// of the default command and show `status`'s usage, which names neither the mistake nor the commands.
    static func unknownCommand(in line: [String]) -> String? {
        let commands = configuration.subcommands.map { $0._commandName }
        // The first word that is not a global option (`--socket PATH` left before a word that is no command).
        var index = line.startIndex
        while index < line.endIndex,
            GlobalOptions.valued.contains(line[index]) || GlobalOptions.flags.contains(line[index])
        {
            index += GlobalOptions.valued.contains(line[index]) ? 2 : 1
        }
        guard index < line.endIndex else { return nil }
        let word = line[index]
        guard !word.hasPrefix("-"), word != "help", !commands.contains(word) else { return nil }
        let closest = commands.min { editDistance(word, $0) < editDistance(word, $1) }
        let suggestion = closest.flatMap { editDistance(word, $0) <= 2 ? " Did you mean '\($0)'?" : nil } ?? ""
        return "locctl: unknown command '\(word)'.\(suggestion) Commands: \(commands.joined(separator: ", ")); "
            + "locctl --help says what each does."
    }

    /// The number of one-character insertions, deletions and substitutions that turn `a` into `b`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    package init() {}

    /// Runs the command, but exits 1 (not argument-parser's 64) on a command line it cannot parse,
    /// so that the exit codes are the three the help text promises.
    package static func main() {
        let line = commandLine(Array(CommandLine.arguments.dropFirst()))
        if let message = unknownCommand(in: line) {
            writeStandardError(message + "\n")
            Glibc.exit(ExitCode.failure.rawValue)
        }
        do {
            var command = try parseAsRoot(line)
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                writeStandardError(fullMessage(for: error) + "\n")
                Glibc.exit(ExitCode.failure.rawValue)
            }
            exit(withError: error)
        }
    }
}
