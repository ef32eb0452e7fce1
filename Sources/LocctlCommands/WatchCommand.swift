import ArgumentParser
import Foundation
import JSON
import LocationProtocol
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// `locctl watch`: every state change in locd, one line each, as it happens.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow locd's events live, one line per event, until Ctrl-C.",
        discussion: """
            Each line is the event's local time, kind (sessionCreated, sessionChanged, sessionEnded, \
            appStateChanged, authorizationChanged, promptRaised, promptResolved, servicesChanged), \
            app with the user whose app it is (com.example.maps[alice], SEMANTICS H1), session ("-" \
            where the event has none) and detail. Ctrl-C ends it with exit code 0; locd going away ends it with \
            exit code 1.

            An administrator follows every user's apps; anyone else their own apps' events and those \
            of no app (the machine's switch, the providers) (SEMANTICS H4).

            With --json, prints each Event object of io.locd.Admin.Watch on its own line (fields: \
            kind, appId, sessionId, detail, timestamp as Unix seconds, user as a uid; absent ones are \
            left out).

            Example: locctl watch --json | jq .kind
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print each Event as one line of JSON, with its stable field names.")
    var json = false

    /// Accepted as every command accepts it, as systemctl's options are: this command prints no table.
    @Flag(name: .long, help: "Accepted for scripts that pass it to every command; there is no table here.")
    var noLegend = false

    func run() throws {
        endOnInterrupt()
        let client = try connection.connect()
        do {
            try client.send(VarlinkCall(method: AdminMethod.watch.name, more: true))
            let style = Style.standardOutput
            while true {
                let reply: VarlinkReply
                do {
                    reply = try client.receive()
                } catch VarlinkClient.ClientError.timedOut {
                    continue  // A quiet daemon is not a failure; keep waiting.
                }
                if let error = reply.error { throw VarlinkError(name: error, parameters: reply.parameters) }
                if let line = Self.output(reply.parameters, json: json, style: style) { printLine(line) }
                if !reply.continues { break }
            }
        } catch {
            throw CommandFailure.report(error)
        }
    }

    /// The line printed for one `Admin.Watch` reply; `nil` for a reply without an event.
    static func output(
        _ reply: JSONObject,
        json: Bool,
        style: Style = .plain,
        timeZone: TimeZone = .current,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String? {
        guard let event = reply["event"] else { return nil }
        return json
            ? JSONOutput.line(event) : render(event, style: style, timeZone: timeZone, userName: userName)
    }

    /// One event as one line, separate so it can be tested on a fixed event.
    static func render(
        _ event: JSONValue,
        style: Style = .plain,
        timeZone: TimeZone = .current,
        userName: (UInt32) -> String? = Users.name(of:)
    ) -> String {
        // I16: the text escaped before it is read.
        let event = WireEvent(json: event.shownAsText) ?? WireEvent(kind: "?", detail: "", timestamp: .nan)
        let time = TimeFormat.clock(event.timestamp, in: timeZone)
        let kind = event.kind
        let padding = String(repeating: " ", count: max(0, 20 - kind.count))
        // H1: "com.example.maps[alice]", the app of that user.
        let user = event.user.map { "[\(Users.label($0, name: userName))]" } ?? ""
        let app = (event.appId ?? "-") + user
        let session = event.sessionId ?? "-"
        let detail = event.detail
        return "\(style.paint(time, .dim)) \(style.paint(kind, .bold))\(padding) \(app) \(session) \(detail)"
    }
}

/// Makes Ctrl-C (and SIGTERM) end the process with exit code 0: for a command that follows a stream,
/// being stopped is the normal way to end, and every line printed so far has been flushed.
///
/// The signals are also unblocked: a parent may start locctl with them blocked (the mask survives
/// `exec`), and then neither Ctrl-C nor `kill` would end it.
func endOnInterrupt() {
    _ = signal(SIGINT) { _ in _exit(0) }
    _ = signal(SIGTERM) { _ in _exit(0) }
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    sigprocmask(SIG_UNBLOCK, &signals, nil)
}
