import ArgumentParser
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
            print(Self.render(status), terminator: "")
        }
    }

    /// The human rendering, separate so it can be tested on a fixed reply.
    static func render(_ status: JSONValue) -> String {
        func int(_ key: String) -> Int64 { status[key]?.intValue ?? 0 }
        func list(_ key: String) -> String {
            let names = status[key]?.arrayValue?.compactMap(\.stringValue) ?? []
            return names.isEmpty ? "none" : names.joined(separator: ", ")
        }
        let provider = status["provider"]
        let running = provider?["running"]?.boolValue == true ? "running" : "idle"
        let fix = provider?["hasFix"]?.boolValue == true ? ", has a fix" : ""
        let uptime = duration(status["uptimeSeconds"]?.doubleValue ?? 0)
        let store = status["storeHealthy"]?.boolValue == true ? "healthy" : "FAILING, serving from memory and retrying"
        let rows: [(String, String)] = [
            ("Location services", status["locationServicesEnabled"]?.boolValue == true ? "on" : "off"),
            ("Provider", "\(provider?["name"]?.stringValue ?? "?") (\(running)\(fix))"),
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

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds)
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)min \(total % 60)s" }
        return "\(total / 3600)h \(total % 3600 / 60)min"
    }
}
