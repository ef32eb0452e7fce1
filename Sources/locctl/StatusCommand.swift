import ArgumentParser
import Foundation
import Varlink

/// `locctl status`: the daemon at a glance, and the apps using location now (the status-bar list).
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the daemon's state, counts, and the apps using location."
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print the Admin.Status reply as JSON, with its stable field names.")
    var json = false

    func run() throws {
        let reply = try connection.call("io.locd.Admin.Status")
        guard let status = reply["status"] else { throw ExitCode.failure }
        if json {
            print(status.serialized)
        } else {
            print(Self.render(status, now: Date().timeIntervalSince1970), terminator: "")
        }
    }

    /// The human rendering, separate so it can be tested on a fixed reply.
    /// - Parameter now: Unix time, to say how old the provider's last fix is.
    static func render(_ status: JSONValue, now: Double) -> String {
        func int(_ key: String) -> Int64 { status[key]?.intValue ?? 0 }
        func list(_ key: String) -> String {
            let names = status[key]?.arrayValue?.compactMap(\.stringValue) ?? []
            return names.isEmpty ? "none" : names.joined(separator: ", ")
        }
        let provider = status["provider"]
        var rows: [(String, String)] = [
            ("Location services", status["locationServicesEnabled"]?.boolValue == true ? "on" : "off"),
            ("Provider", providerSummary(provider)),
        ]
        if let lastFix = provider?["lastFix"]?.doubleValue {
            let point = [provider?["lastLatitude"], provider?["lastLongitude"]].compactMap { $0?.doubleValue }
            let place = point.count == 2 ? "\(degrees(point[0])), \(degrees(point[1])), " : ""
            rows.append(("Last fix", "\(place)\(duration(max(0, now - lastFix))) ago"))
        }
        if let problem = provider?["lastError"]?.stringValue { rows.append(("Provider problem", problem)) }
        let uptime = duration(status["uptimeSeconds"]?.doubleValue ?? 0)
        let store = status["storeHealthy"]?.boolValue == true ? "healthy" : "FAILING, serving from memory and retrying"
        rows += [
            ("Store", store),
            ("Apps", "\(int("apps"))    clients \(int("clients"))    agents \(int("agents"))"),
            ("Sessions", "\(int("sessions")) (\(int("lingeringSessions")) lingering)"),
            ("Pending prompts", "\(int("pendingPrompts"))"),
            ("Using location", list("appsUsingLocation")),
            ("In the background", list("appsUsingLocationInBackground")),
        ]
        var out = "locd \(status["version"]?.stringValue ?? "?") (pid \(int("pid"))), up \(uptime)\n"
        for (label, value) in rows {
            out += String(repeating: " ", count: 20 - label.count) + label + ": " + value + "\n"
        }
        return out
    }

    /// `gpsd (running, has a fix) from 127.0.0.1:2947`; the provider's own state where it is not the expected
    /// one (connecting, retrying, failed).
    static func providerSummary(_ provider: JSONValue?) -> String {
        var parts = [provider?["running"]?.boolValue == true ? "running" : "idle"]
        if let state = provider?["state"]?.stringValue, !["running", "stopped"].contains(state) { parts.append(state) }
        if provider?["hasFix"]?.boolValue == true { parts.append("has a fix") }
        let source = provider?["source"]?.stringValue.map { " from \($0)" } ?? ""
        return "\(provider?["name"]?.stringValue ?? "?") (\(parts.joined(separator: ", ")))\(source)"
    }

    /// Degrees to six places (about 10 cm).
    static func degrees(_ value: Double) -> String {
        String(format: "%.6f", value)
    }

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds)
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)min \(total % 60)s" }
        return "\(total / 3600)h \(total % 3600 / 60)min"
    }
}
