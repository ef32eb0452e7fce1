import DisplayText
import JSON
import LocationConfiguration
import LocationProtocol
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// Completions that ask locd what there is: the app ids and session ids the person may reach (SEMANTICS H4), as
/// `systemctl` completes unit names. The shell runs `locctl` to complete a word; a locd that cannot be reached in a
/// second completes nothing, never an error on the person's terminal.
enum LiveCompletion {
    /// The ids of `ListApps` that begin with `prefix`.
    @Sendable static func appIDs(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        ids(of: AdminMethod.listApps.name, list: "apps", field: "appId", words: words, prefix: prefix)
    }

    /// The ids of `ListSessions` that begin with `prefix`.
    @Sendable static func sessionIDs(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        ids(of: AdminMethod.listSessions.name, list: "sessions", field: "id", words: words, prefix: prefix)
    }

    /// The `field` of each element of `list` in `method`'s reply, sorted, without repeats (an app id is listed once
    /// per user whose app it is).
    private static func ids(
        of method: String,
        list: String,
        field: String,
        words: [String],
        prefix: String
    )
        -> [String]
    {
        guard let client = try? VarlinkClient(path: socketPath(in: words), timeout: 1),
            let reply = try? client.call(method, [:]),
            let elements = reply[list]?.arrayValue
        else { return [] }
        // I16: a completion is printed for the shell, which must not be handed an app's escapes or line breaks.
        let found = elements.compactMap { $0[field]?.stringValue?.escapedForDisplay }.filter { $0.hasPrefix(prefix) }
        return Array(Set(found)).sorted()
    }

    /// The socket the command line being completed names (`--socket PATH` or `--socket=PATH`), else the one
    /// ``ConnectionOptions`` would use.
    static func socketPath(in words: [String]) -> String {
        var given: String?
        for (index, word) in words.enumerated() {
            if word.hasPrefix("--socket=") { given = String(word.dropFirst("--socket=".count)) }
            if word == "--socket", index + 1 < words.count { given = words[index + 1] }
        }
        return ConnectionOptions.socketPath(given: given)
    }
}
