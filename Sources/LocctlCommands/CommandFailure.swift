import ArgumentParser
import LocationProtocol
import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// How a failure is reported: one line on standard error and the exit code it means.
///
/// Scripts rely on the codes the way they rely on `systemctl`'s: 4 says the object named does not
/// exist, so a caller can tell a typo from a daemon that is down.
enum CommandFailure {
    /// Varlink errors that say the object named does not exist.
    static let notFoundErrors: Set<String> = [
        WireErrorName.noSuchApp.name,
        WireErrorName.noSuchPrompt.name,
        WireErrorName.noSuchSession.name,
    ]

    /// The exit code for a Varlink error name: 4 for "no such object", else 1.
    static func exitCode(forErrorNamed name: String) -> ExitCode {
        notFoundErrors.contains(name) ? ExitCode(4) : .failure
    }

    /// The line locctl prints for an error (without the `locctl: ` prefix).
    static func message(for error: Error, socket: String? = nil) -> String {
        switch error {
        case let error as VarlinkError:
            let message = error.parameters["message"]?.stringValue
            return message.map { "\(error.name): \($0)" } ?? error.name
        case VarlinkClient.ClientError.connect(let path, let code):
            return "cannot connect to \(path): \(String(cString: strerror(code))). Start locd "
                + "(systemctl start locd.socket, or run locd --socket \(path)) or name its socket "
                + "with --socket or LOCD_SOCKET."
        case VarlinkClient.ClientError.closed:
            return "locd closed the connection; check that it is still running (systemctl status locd)."
        case VarlinkClient.ClientError.timedOut:
            return "locd did not answer in time; check that it is not stuck (systemctl status locd)."
        case VarlinkClient.ClientError.malformedReply:
            return "locd sent a reply that is not valid Varlink; check that locctl and locd are the same version."
        default:
            return "\(error)"
        }
    }

    /// Prints the error and returns the exit code to throw.
    static func report(_ error: Error) -> ExitCode {
        if let code = error as? ExitCode { return code }
        printError(message(for: error))
        if let error = error as? VarlinkError { return exitCode(forErrorNamed: error.name) }
        return .failure
    }

    /// Reports that a named object does not exist, as the daemon would have.
    static func notFound(_ name: String, _ message: String) -> ExitCode {
        report(VarlinkError(name: name, parameters: ["message": .string(message)]))
    }
}
