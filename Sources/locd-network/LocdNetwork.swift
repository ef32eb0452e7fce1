import ArgumentParser
import Foundation
import LocationNetwork
import Logging
import SystemdSupport

/// `locd-network`: locd's way to the network. Thin: options in, the server out, until SIGTERM or SIGINT.
@main
struct LocdNetwork: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locd-network",
        abstract: "Locate this machine from the Wi-Fi access points in view, for locd, which has no network.",
        discussion: """
            Serves io.locd.NetworkLocation on a Unix socket: the one systemd passes (locd-network.socket), else \
            --socket. While a Watch is open, and only then, it reads the access points in view from \
            wpa_supplicant or NetworkManager on the system bus ($DBUS_SYSTEM_BUS_ADDRESS, else the system bus) \
            and POSTs their BSSIDs and signal strengths to the ichnaea-compatible geolocate URL the Watch names \
            (https://, or http:// on a loopback address). Access points whose SSID ends in _nomap, and \
            randomised or zero BSSIDs, are never sent. Exit codes: 0 stopped by SIGTERM or SIGINT, 1 the \
            socket could not be served.
            """,
        version: "0.1.0"
    )

    @Option(name: .long, help: "The socket to bind when systemd passes none.", completion: .file())
    var socket: String = "/run/locd/network.sock"

    @Option(name: .customLong("request-timeout"), help: "Seconds one request may take in all, the answer included.")
    var requestTimeout: Double = 10

    @Option(
        name: .customLong("idle-timeout"),
        help: "Seconds a connection may stay open without a call before it is closed."
    )
    var idleTimeout: Double = 10

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        guard requestTimeout.isFinite, requestTimeout >= 1, requestTimeout <= 120 else {
            throw ValidationError("--request-timeout must be between 1 and 120 seconds")
        }
        guard idleTimeout.isFinite, idleTimeout >= 0.1, idleTimeout <= 3600 else {
            throw ValidationError("--idle-timeout must be between 0.1 and 3600 seconds")
        }
    }

    func run() throws {
        let level = logLevel
        let journal = Systemd.runningUnderSystemd(environment: ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap { Systemd.makeLogHandler(label: $0, underSystemd: journal, logLevel: level) }
        let logger = Logger(label: "locd-network")
        let server = NetworkLocationServer(
            requestDeadline: .milliseconds(Int64(requestTimeout * 1000)),
            idleTimeout: .milliseconds(Int64(idleTimeout * 1000)),
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
        Self.waitForTermination()
        logger.info("stopping")
        server.shutdown()
    }

    /// Blocks until SIGTERM or SIGINT.
    private static func waitForTermination() {
        let done = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { done.signal() }
            source.resume()
            sources.append(source)
        }
        done.wait()
        withExtendedLifetime(sources) {}
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
