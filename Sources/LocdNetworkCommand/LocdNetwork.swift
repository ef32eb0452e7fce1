import ArgumentParser
import Foundation
import LocationNetwork
import LogLevelArgument
import Logging
import SystemdSupport

/// `locd-network`: locd's way to the network. Thin: options in, the server out, until SIGTERM or SIGINT. Started by
/// the `locd-network` executable and by the multi-call binary run as `locd-network`.
package struct LocdNetwork: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "locd-network",
        abstract: "Locate this machine from the Wi-Fi access points in view, for locd, which has no network.",
        discussion: """
            Serves io.locd.NetworkLocation on a Unix socket: the one systemd passes (locd-network.socket), else \
            --socket. While a Watch is open, and only then, it reads the access points in view from \
            wpa_supplicant or NetworkManager on the system bus ($DBUS_SYSTEM_BUS_ADDRESS, else the system bus) \
            and POSTs their BSSIDs and signal strengths to the ichnaea-compatible geolocate URL the Watch names \
            (https://, or http:// on a loopback address). Access points whose SSID ends in _nomap or is \
            hidden, and randomised or zero BSSIDs, are never sent. When the list is older than the Watch's \
            interval it first asks the supplicant for a scan. It obeys the service's Retry-After and ichnaea's \
            dailyLimitExceeded (nothing until the next UTC day) and keyInvalid (nothing more of that url until \
            it changes or locd-network restarts), and keeps answers for an unchanged set of access points an \
            hour.

            Environment: https_proxy (else HTTPS_PROXY), http://[user:password@]host:port, carries https:// \
            requests with CONNECT; no_proxy (else NO_PROXY) lists hosts reached directly (names and their \
            subdomains, addresses, or *); loopback is always reached directly.

            Exit codes: 0 stopped by SIGTERM or SIGINT, 1 the socket could not be served, 64 a bad option or \
            proxy variable.
            """,
        version: UserAgent.version
    )

    @Option(name: .long, help: "The socket to bind when systemd passes none.", completion: .file())
    var socket: String = "/run/locd/network.sock"

    @Option(
        name: .customLong("request-timeout"),
        help: """
            Seconds one request may take in all: connecting, TLS, the request and the whole answer. The HTTP \
            client makes one connection attempt per request and retries none of its own.
            """
    )
    var requestTimeout: Double = 10

    @Option(
        name: .customLong("user-agent"),
        help: """
            The User-Agent sent to the service (printable ASCII, at most \(UserAgent.maximumBytes) bytes). \
            Default: locd-network/\(UserAgent.version) (the system's PRETTY_NAME from /etc/os-release; \
            \(UserAgent.projectURL)).
            """
    )
    var userAgent: String?

    @Option(
        name: .customLong("ca-file"),
        help: """
            A PEM file of CA certificates to check the service's certificate against, instead of the system's \
            trust store.
            """,
        completion: .file()
    )
    var caFile: String?

    @Option(
        name: .customLong("idle-timeout"),
        help: "Seconds a connection may stay open without a call before it is closed."
    )
    var idleTimeout: Double = 10

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    package init() {}

    package func validate() throws {
        guard requestTimeout.isFinite, requestTimeout >= 1, requestTimeout <= 120 else {
            throw ValidationError("--request-timeout must be between 1 and 120 seconds")
        }
        guard idleTimeout.isFinite, idleTimeout >= 0.1, idleTimeout <= 3600 else {
            throw ValidationError("--idle-timeout must be between 0.1 and 3600 seconds")
        }
        if let userAgent, let problem = UserAgent.check(userAgent) {
            throw ValidationError("--user-agent \(problem)")
        }
        if let caFile, case .failure(let invalid) = CAFile.load(path: caFile) {
            throw ValidationError("\(invalid.field): \(invalid.reason)")
        }
        if case .failure(let invalid) = ProxySettings.parse(environment: ProcessInfo.processInfo.environment) {
            throw ValidationError("\(invalid.field) \(invalid.reason)")
        }
    }

    /// The text of os-release(5): /etc/os-release, else /usr/lib/os-release.
    private static func osRelease() -> String? {
        for path in ["/etc/os-release", "/usr/lib/os-release"] {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) { return String(text.prefix(65_536)) }
        }
        return nil
    }

    package func run() throws {
        // Blocked before any thread starts (every thread inherits the mask), so that a SIGTERM at any moment,
        // READY=1 included, waits for the sigwait below rather than ending the process unserved.
        var termination = Self.blockTermination()
        let level = logLevel
        let journal = Systemd.runningUnderSystemd(environment: ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap { Systemd.makeLogHandler(label: $0, underSystemd: journal, logLevel: level) }
        let logger = Logger(label: "locd-network")
        // validate() has checked both.
        let proxy = (try? ProxySettings.parse(environment: ProcessInfo.processInfo.environment).get())
        let trusted = caFile.flatMap { try? CAFile.load(path: $0).get() }
        let agent = userAgent ?? UserAgent.make(osRelease: Self.osRelease())
        if let server = proxy?.server {
            logger.info("https:// requests go through the proxy \(server.host):\(server.port)")
        }
        let server = NetworkLocationServer(
            requestDeadline: .milliseconds(Int64(requestTimeout * 1000)),
            idleTimeout: .milliseconds(Int64(idleTimeout * 1000)),
            userAgent: agent,
            proxy: proxy ?? ProxySettings(server: nil),
            caFile: trusted,
            logger: logger
        )
        do {
            if let passed = Systemd.listenedSockets().first?.descriptor {
                try server.adopt(descriptor: passed)
            } else {
                try server.bind(path: socket)
            }
        } catch {
            logger.critical("cannot serve: \(error)")
            throw ExitCode.failure
        }
        _ = SystemdNotifier().ready()
        var received: Int32 = 0
        sigwait(&termination, &received)
        logger.info("stopping")
        server.shutdown()
    }

    /// Blocks SIGTERM and SIGINT in the calling thread, and so in every thread it starts after; the set, for
    /// `sigwait`.
    private static func blockTermination() -> sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        return signals
    }
}
