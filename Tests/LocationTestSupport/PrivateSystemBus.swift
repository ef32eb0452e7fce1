import Foundation

/// A dbus-daemon of the test's own, standing in for the system bus: anyone may own any name and call anything
/// (Fixtures/system-bus.conf). Programs reach it through ``environment`` (`DBUS_SYSTEM_BUS_ADDRESS`).
package final class PrivateSystemBus: @unchecked Sendable {
    // @unchecked: set once in init, then only read.
    package let address: String
    private let daemon: ScriptProcess

    /// Starts the bus with its socket in `directory`.
    /// - Parameter policies: more `<policy>` elements, after the open default one, as a real system bus reads the
    ///   policies services install.
    package init(directory: String, policies: String = "") throws {
        let template = try String(contentsOfFile: ScriptProcess.fixture("system-bus.conf"), encoding: .utf8)
        let config = directory + "/system-bus.conf"
        try template.replacingOccurrences(of: "@SOCKET@", with: directory + "/bus")
            .replacingOccurrences(of: "</busconfig>", with: policies + "\n</busconfig>")
            .write(toFile: config, atomically: true, encoding: .utf8)
        daemon = try ScriptProcess(
            ["/usr/bin/dbus-daemon", "--config-file=" + config, "--nofork", "--print-address=1"],
            logPath: directory + "/bus.log"
        )
        address = "unix:path=" + directory + "/bus"
        guard eventually(timeout: 20, every: 0.02, { daemon.log.contains("unix:path=") || !daemon.process.isRunning }),
            daemon.log.contains("unix:path=")
        else { throw StandInFailure("dbus-daemon did not start: \(daemon.log)") }
    }

    /// The environment that points a program at this bus.
    package var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }

    /// Stops the bus.
    package func stop() { daemon.kill9() }
}
