/// The options every `locctl` command shares, accepted before the command as well as after it, as
/// `systemctl --no-pager status` and `systemctl status --no-pager` both work.
///
/// swift-argument-parser reads a subcommand's options only after its name, so the command line is
/// rearranged before parsing: global options found before the command move to just after it, in their
/// order, and a command line with global options but no command gets `status`, the default command.
/// Everything after the command, and everything after `--`, is left as it is.
enum GlobalOptions {
    /// Global options that take a value (`--socket PATH` or `--socket=PATH`).
    static let valued: Set<String> = ["--socket"]
    /// Global flags.
    static let flags: Set<String> = ["--json", "--no-legend"]

    /// `arguments` (without the program name) with the global options before the command moved after it.
    static func rearranged(_ arguments: [String], commands: Set<String>, defaultCommand: String) -> [String] {
        // locctl never pages: `--no-pager`, which systemctl's habit puts anywhere, is accepted and dropped.
        // `--json=short` and `--json=pretty` are `--json` (``JSONOutput/style`` reads which), `--json=off` none.
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        let options = arguments[..<end].compactMap { argument -> String? in
            switch argument {
            case "--no-pager", "--json=off": return nil
            case "--json=short", "--json=pretty": return "--json"
            default: return argument
            }
        }
        let arguments = options + arguments[end...]
        var moved: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if flags.contains(argument) {
                moved.append(argument)
            } else if valued.contains(name) {
                moved.append(argument)
                if name == argument, index + 1 < arguments.endIndex {
                    index += 1
                    moved.append(arguments[index])
                }
            } else {
                break
            }
            index += 1
        }
        if moved.isEmpty { return arguments }
        let rest = arguments[index...]
        guard let command = rest.first, commands.contains(command) else {
            // No command (or `--help`, `--version`, a word that is no command): the default command gets
            // the options, unless what follows is for the root, which then reports it as it always did.
            if rest.isEmpty { return [defaultCommand] + moved }
            return arguments
        }
        return [command] + moved + rest.dropFirst()
    }
}
