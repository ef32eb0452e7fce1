import Foundation

/// A private system bus for the GeoClue scenario: `dbus-daemon` with a configuration of the benchmark's own, on a
/// socket in the benchmark's directory, on which anyone may own any name and call anything.
final class PrivateBus {
    let address: String
    private let daemon: ChildProcess

    init(directory: String) throws {
        let daemonPath = "/usr/bin/dbus-daemon"
        guard FileManager.default.isExecutableFile(atPath: daemonPath) else {
            throw BenchError.failed("no \(daemonPath): install dbus-daemon (.ci/install-deps --tests does)")
        }
        let socket = directory + "/system_bus_socket"
        address = "unix:path=" + socket
        let config = directory + "/system-bus.conf"
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_type="method_call"/>
            <allow send_destination="*"/>
            <allow receive_sender="*"/>
          </policy>
        </busconfig>
        """.write(toFile: config, atomically: true, encoding: .utf8)
        daemon = try ChildProcess(
            name: "dbus-daemon",
            [daemonPath, "--config-file=" + config, "--nofork", "--print-address=1"],
            environment: ProcessInfo.processInfo.environment,
            logPath: directory + "/bus.log"
        )
        try daemon.waitForLog("unix:path=", timeout: 10)
    }

    deinit { daemon.stop() }

    /// The bus daemon's process id, for its CPU time.
    var pid: Int32 { daemon.pid }

    /// This process's environment for a client or service of the bus: the bus's address, and no systemd
    /// variables (a service started here logs to its log file, not to the journal).
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        for key in ["INVOCATION_ID", "JOURNAL_STREAM", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            environment.removeValue(forKey: key)
        }
        return environment
    }
}
