import Foundation
import JSON

/// A stand-in HTTP proxy on 127.0.0.1 (Fixtures/connect_proxy.py): it answers `CONNECT` only, records each, and
/// tunnels it to a port of this machine whatever host was named, so a name that resolves nowhere still reaches the
/// test's own service.
package final class StandInProxy: @unchecked Sendable {
    // @unchecked: set once in init; the script is driven from one test.
    private let script: ScriptProcess
    package let port: Int

    /// Starts the proxy, tunnelling every `CONNECT` to 127.0.0.1:`target`.
    package init(target: Int, directory: String) throws {
        script = try ScriptProcess(
            ["/usr/bin/python3", ScriptProcess.fixture("connect_proxy.py"), String(target)],
            logPath: directory + "/proxy.log"
        )
        guard let port = script.waitFor({ $0["port"] != nil })?["port"]?.intValue else {
            throw StandInFailure("the stand-in proxy did not start: \(script.log)")
        }
        self.port = Int(port)
    }

    /// The `host:port` of every `CONNECT` so far, in order.
    package var connects: [String] { script.objects.compactMap { $0["connect"]?.stringValue } }

    /// The `Proxy-Authorization` of every `CONNECT` so far, in order.
    package var authorizations: [String?] {
        script.objects.filter { $0["connect"] != nil }.map { $0["authorization"]?.stringValue }
    }

    package func stop() { script.kill9() }
}
