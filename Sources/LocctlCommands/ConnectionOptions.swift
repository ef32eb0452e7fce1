import ArgumentParser
import DisplayText
import JSON
import LocationConfiguration
import LocationProtocol
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// Options every command that talks to locd shares.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The socket locd listens on.",
            discussion: "Default: $LOCD_SOCKET, else /run/locd/io.locd as root, else $XDG_RUNTIME_DIR/locd/io.locd.",
            valueName: "path"
        ),
        completion: .file()
    )
    var socket: String?

    /// The socket to use, by the order the help text gives.
    var socketPath: String { Self.socketPath(given: socket) }

    /// The socket `--socket` names, else the default the help text gives.
    static func socketPath(given socket: String?) -> String {
        if let socket { return socket }
        let environment = ProcessEnvironment.current
        if let path = environment["LOCD_SOCKET"], !path.isEmpty { return path }
        return DaemonConfiguration.defaultSocket(uid: geteuid(), environment: environment)
    }

    /// Connects, turning a refused or missing socket into a printed error and exit code 1.
    func connect(timeout: Double = 10) throws -> VarlinkClient {
        do {
            return try VarlinkClient(path: socketPath, timeout: timeout)
        } catch {
            throw CommandFailure.report(error)
        }
    }

    /// Connects and calls one method, turning failures into a printed error and the exit code they mean.
    func call(_ method: String, _ parameters: JSONObject = [:]) throws -> JSONObject {
        try call(method, parameters, on: try connect())
    }

    /// Calls one method on a connection already open, for a command that makes several calls.
    func call(_ method: String, _ parameters: JSONObject = [:], on client: VarlinkClient) throws -> JSONObject {
        do {
            return try client.call(method, parameters)
        } catch {
            throw CommandFailure.report(error)
        }
    }

    /// Whether the caller may administer locd (SEMANTICS I3), as `Admin.Status` says on `client`: what a command
    /// tells its user depends on it (an ordinary user's `services off` is their own switch, H6).
    func isAdministrator(on client: VarlinkClient) throws -> Bool {
        Self.isAdministrator(try call(AdminMethod.status.name, on: client))
    }

    /// `administrator` of an `Admin.Status` reply; a locd that does not say is one from before H4, where every
    /// caller of `io.locd.Admin` administered.
    static func isAdministrator(_ status: JSONObject) -> Bool {
        status["status"]?["administrator"]?.boolValue ?? true
    }
}

/// Writes a line to standard error (file descriptor 2; Swift 6 forbids the global `stderr`).
func printError(_ text: String) {
    writeStandardError("locctl: \(text.escapedKeepingLineBreaks)\n")
}

/// Writes text to standard error as it is.
func writeStandardError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// Prints a line on standard output and flushes it, so that a pipe sees each line as it happens.
func printLine(_ text: String) {
    print(text)
    fflush(nil)  // nil: every stream; Swift 6 forbids naming the global `stdout`.
}
