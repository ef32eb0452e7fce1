import ArgumentParser
import Foundation
import LocationClient

#if canImport(Glibc)
import Glibc
#endif

/// `locd-example`: what an app does with ``LocationClient``, printed line by line.
///
/// It connects as an app, holds a `whenInUse` service session, and prints the session's diagnostics and the live
/// updates until the time is up or Ctrl-C; then it invalidates the session and says `Goodbye`.
@main
struct ExampleApp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locd-example",
        abstract: "An app using locd: a when-in-use session, its diagnostics and live updates.",
        discussion: """
            The socket is --socket, else $LOCD_SOCKET, else $XDG_RUNTIME_DIR/locd/io.locd when a user daemon \
            listens there, else /run/locd/io.locd. Answer its prompt with `locctl agent`.
            """
    )

    @Option(name: .long, help: "The socket locd listens on.")
    var socket: String?

    @Option(name: .long, help: "The app id to connect as (its manifest in apps.d).")
    var app = "com.example.maps"

    @Option(name: .long, help: "How long to run, in seconds (0: until Ctrl-C).")
    var seconds: Double = 0

    @Option(
        name: .long,
        help: ArgumentHelp(
            "foreground or background, as the app reports it at connect.",
            discussion: "Left out, the client library tells it from the terminal and follows job control: run "
                + "with & or Ctrl-Z and bg, the app is in the background; fg brings it back."
        )
    )
    var state: AppState?

    func run() async throws {
        // Signals first: a Ctrl-C that comes while connecting still ends the app cleanly.
        let (stops, stop) = AsyncStream.makeStream(of: Void.self)
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { stop.yield() }
            source.resume()
            return source
        }
        defer { for source in sources { source.cancel() } }
        if seconds > 0 {
            let duration = Duration.seconds(seconds)
            Task {
                try await Task.sleep(for: duration)
                stop.yield()
            }
        }

        // A LocationClientError describes itself with what to do: ArgumentParser prints it and exits 1.
        let client = try await LocationClient.connect(appID: app, socketPath: socket, state: state)
        let authorization = try await client.authorization
        Self.say("connected to \(client.socketPath) as \(app): \(authorization.status.rawValue)")
        let session = try await client.serviceSession(authorization: .whenInUse)
        Self.say("session \(session.id): whenInUse")

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await diagnostic in session.diagnostics {
                    Self.say("diagnostic: \(Self.describe(diagnostic.flags))")
                }
            }
            group.addTask {
                for try await update in client.liveUpdates() {
                    Self.say("update: \(Self.describe(update))")
                }
            }
            group.addTask {
                for await _ in stops { return }
            }
            // Whichever ends first (time up, Ctrl-C, or a stream that failed) ends the app.
            _ = try await group.next()
            group.cancelAll()
        }
        session.invalidate()
        try await client.goodbye()
        Self.say("goodbye")
    }

    /// Writes a line at once, unbuffered, so that a reader of a pipe sees each update as it happens.
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private static func describe(_ flags: DiagnosticFlags) -> String {
        flags.isEmpty ? "nothing limits location" : flags.names.joined(separator: ", ")
    }

    private static func describe(_ update: LocationUpdate) -> String {
        guard let location = update.location else { return "no location (\(describe(update.flags)))" }
        let point = String(
            format: "%.6f, %.6f ±%.0f m",
            location.latitude,
            location.longitude,
            location.horizontalAccuracy
        )
        return update.flags.isEmpty ? point : "\(point) (\(describe(update.flags)))"
    }
}

extension AppState: ExpressibleByArgument {}
