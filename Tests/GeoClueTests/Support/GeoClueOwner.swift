import Foundation
import LocationTestSupport
import Testing

/// Which program owns org.freedesktop.GeoClue2 in a scenario: locd-geoclue with the real locd deciding, or the real
/// GeoClue 2.6. The scenarios that both can serve are one test function run with each (G22).
enum GeoClueOwner: String, CaseIterable, CustomTestStringConvertible {
    case locd
    case geoclue

    var testDescription: String { self == .locd ? "locd-geoclue" : "GeoClue 2.6" }

    /// Starts this owner on a private bus, with what answers its questions: for locd, `locctl agent` allowing while
    /// in use (so each app's first Start is a prompt locd asks and the agent answers); for GeoClue, its demo agent.
    /// Where GeoClue cannot run here the test case is cancelled, with the reason on stderr.
    func start() throws -> RunningGeoClueOwner {
        switch self {
        case .locd:
            return try RunningGeoClueOwner(locd: GeoClueHarness())
        case .geoclue:
            if let reason = GeoClue26.unavailable { try skipCase("the GeoClue 2.6 column: \(reason)") }
            return RunningGeoClueOwner(geoclue: try GeoClue26())
        }
    }
}

/// Cancels the running test case because what it needs is not here, saying why on stderr as well: the console
/// reporter shows a cancelled case as passed, without its reason.
func skipCase(_ reason: String) throws -> Never {
    FileHandle.standardError.write(Data("GeoClueTests: skipped \(reason)\n".utf8))
    try Test.cancel("skipped \(reason)")
}

/// One owner of org.freedesktop.GeoClue2 running for a scenario; clients run against its bus.
final class RunningGeoClueOwner {
    let locd: GeoClueHarness?
    let geoclue: GeoClue26?
    /// `locctl agent --answer allowWhileUsing`, for locd-geoclue.
    let agent: ScriptProcess?
    let directory: String
    let busEnvironment: [String: String]

    init(locd harness: GeoClueHarness) throws {
        locd = harness
        geoclue = nil
        directory = harness.directory
        busEnvironment = harness.busEnvironment
        agent = try ScriptProcess(
            [GeoClueHarness.binary("locctl"), "agent", "--answer", "allowWhileUsing"],
            environment: ["LOCD_SOCKET": harness.socket],
            logPath: harness.directory + "/agent.log"
        )
        let registered = try eventually(timeout: 10, every: 0.05) {
            let status = try harness.locctl(["status", "--json"])
            let object = try? JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
            return (object?["agents"] as? Int ?? 0) > 0
        }
        guard registered else { throw HarnessFailure("locctl agent did not register: \(agent?.log ?? "")") }
    }

    init(geoclue harness: GeoClue26) {
        locd = nil
        geoclue = harness
        agent = nil
        directory = harness.directory
        busEnvironment = harness.busEnvironment
    }

    deinit { agent?.stop() }

    /// Runs a program on this owner's bus to its end.
    func run(_ arguments: [String], timeout: Double = 20) throws -> CommandResult {
        try Command.run(arguments, environment: busEnvironment, timeout: timeout)
    }

    /// Starts a program on this owner's bus that keeps running.
    func runInBackground(_ arguments: [String]) throws -> ScriptProcess {
        let name = URL(fileURLWithPath: arguments[0]).lastPathComponent
        return try ScriptProcess(
            arguments,
            environment: busEnvironment,
            logPath: "\(directory)/\(name)-\(UUID().uuidString.prefix(6)).log"
        )
    }

    /// One of the project's client scripts (Fixtures) under the system Python, which has gi.
    func python(_ script: String, _ arguments: [String], timeout: Double = 20) throws -> CommandResult {
        try run(["/usr/bin/python3", GeoClueHarness.fixture(script)] + arguments, timeout: timeout)
    }
}

extension GeoClueHarness {
    /// The authorization status locd holds for the test user's `app` (`notDetermined`, `authorizedWhenInUse`, ...),
    /// from `locctl apps --json`.
    func authorization(of app: String) throws -> String? {
        (try self.app(app)?["authorization"] as? [String: Any])?["status"] as? String
    }
}
