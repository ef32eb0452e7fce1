#if canImport(Glibc)
import Glibc
#endif

/// The app's place in its terminal's job control: on Linux the one thing that tells whether a program is in use
/// without the program saying so (SEMANTICS L9).
///
/// A process is in the foreground while its process group is the terminal's foreground group: started with `&`,
/// stopped with Ctrl-Z and continued with `bg`, it is in the background; `fg` brings it back.
final class TerminalJob: Sendable {
    /// How often a following client looks at the terminal.
    static let interval = Duration.seconds(1)

    /// A descriptor on the controlling terminal, `/dev/tty`, which stays right whatever the app does with its
    /// standard input, output and error.
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The process's controlling terminal; `nil` without one (a program started from a desktop, a service).
    static func controlling() -> TerminalJob? {
        let descriptor = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        return TerminalJob(descriptor: descriptor)
    }

    /// Where the process stands now; `nil` once the terminal has hung up.
    var state: AppState? {
        let foreground = tcgetpgrp(descriptor)
        guard foreground > 0 else { return nil }
        return foreground == getpgrp() ? .foreground : .background
    }

    deinit {
        close(descriptor)
    }
}
