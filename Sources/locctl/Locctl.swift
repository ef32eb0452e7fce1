import ArgumentParser
import LocationConfiguration
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// `locctl`: talks to locd the way `systemctl` and `loginctl` talk to their daemons.
@main
struct Locctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locctl",
        abstract: "Inspect and control locd, the location-session daemon.",
        discussion: """
            Exit codes: 0 success, 1 failure (the Varlink error name and what to do are printed).
            The socket is --socket, else $LOCD_SOCKET, else /run/locd/io.locd as root or \
            $XDG_RUNTIME_DIR/locd/io.locd as a user.
            """,
        version: "0.1.0",
        subcommands: [StatusCommand.self, SimulateCommand.self],
        defaultSubcommand: StatusCommand.self
    )
}

/// Options every command shares.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: "The socket locd listens on.")
    var socket: String?

    /// The socket to use, by the order the help text gives.
    var socketPath: String {
        if let socket { return socket }
        let environment = currentEnvironment()
        if let path = environment["LOCD_SOCKET"], !path.isEmpty { return path }
        return DaemonConfiguration.defaultSocket(uid: geteuid(), environment: environment)
    }

    /// Connects and calls one method, turning failures into a printed error and exit code 1.
    func call(_ method: String, _ parameters: JSONObject = [:]) throws -> JSONObject {
        do {
            let client = try VarlinkClient(path: socketPath, timeout: 10)
            return try client.call(method, parameters)
        } catch let error as VarlinkError {
            let message = error.parameters["message"]?.stringValue.map { ": \($0)" } ?? ""
            printError("\(error.name)\(message)")
            throw ExitCode.failure
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
    }
}

/// Writes a line to standard error (file descriptor 2; Swift 6 forbids the global `stderr`).
func printError(_ text: String) {
    let line = Array("locctl: \(text)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        pointer += 1
    }
    return result
}
