// locd-core-bench: the rules engine alone, driven as the shell would drive it, timed with ContinuousClock.
//
//   swift build -c release --product locd-core-bench && .build/release/locd-core-bench [--quick]
//
// Three figures, each printed with its target:
// - create/invalidate churn against a large live population (core events per second);
// - one flip of the global switch, which re-evaluates and reports every session (median of several);
// - expiring lingering sessions one deadline at a time, at growing populations (cost per event).
import LocationCore

/// A core and the ids the shell would hand it: connections, call serials and the clock.
struct Driver {
    var core: LocationCore
    var now = Instant.seconds(1000)
    var nextClient: UInt64 = 1
    var nextSerial: UInt64 = 1
    /// Counts actions, so the optimiser cannot drop the work that made them.
    var sink = 0

    init(apps: Int) {
        let manifests = (0..<apps).map { Manifest(appID: Driver.appID($0), whenInUseUsageDescription: "bench") }
        let configuration = CoreConfiguration(maxSessionsPerApp: 1_000, maxClientsPerApp: 1_000)
        core = LocationCore(configuration: configuration, manifests: manifests)
    }

    static func appID(_ index: Int) -> String { "org.bench.app\(index)" }

    @discardableResult
    mutating func send(_ event: Event) -> [Action] {
        let actions = core.handle(event, at: now)
        sink &+= actions.count
        return actions
    }

    mutating func connect() -> ClientID {
        let client = ClientID(nextClient)
        nextClient += 1
        send(.connected(client, pid: Int32(truncatingIfNeeded: client.raw)))
        return client
    }

    @discardableResult
    mutating func call(_ client: ClientID, _ method: Call) -> [Action] {
        let id = CallID(client: client, serial: nextSerial)
        nextSerial += 1
        return send(.call(id, method))
    }

    /// Creates a session and returns its id.
    mutating func create(_ client: ClientID) -> SessionID {
        for case .reply(_, .session(let view)) in call(client, .createSession(.whenInUse, purposeKey: nil)) {
            return view.id
        }
        fatalError("CreateSession failed: raise max-sessions-per-app in the benchmark's configuration")
    }

    /// Every app authorized While Using and in the foreground, with one connection each.
    mutating func launchAuthorizedApps(_ apps: Int) -> [ClientID] {
        let admin = connect()
        return (0..<apps).map { index in
            call(admin, .setAuthorization(appID: Driver.appID(index), setting: .whileUsing, precise: true))
            let client = connect()
            call(client, .hello(appID: Driver.appID(index), state: .foreground))
            return client
        }
    }
}

// MARK: Measures

let clock = ContinuousClock()

func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Events per second of `pairs` CreateSession + InvalidateSession against `sessions` live sessions of `apps` apps.
func churn(apps: Int, sessions: Int, pairs: Int) -> (eventsPerSecond: Double, sink: Int) {
    var driver = Driver(apps: apps)
    let clients = driver.launchAuthorizedApps(apps)
    for index in 0..<sessions { _ = driver.create(clients[index % apps]) }
    // Ids are numbered in order: learn the next one, then spell the ids as the shell would have decoded them.
    let probe = driver.create(clients[0])
    driver.call(clients[0], .invalidateSession(probe.description))
    let ids = (0..<pairs).map { SessionID(epoch: probe.epoch, number: probe.number + 1 + UInt64($0)).description }
    let start = clock.now
    for index in 0..<pairs {
        let client = clients[index % apps]
        driver.call(client, .createSession(.whenInUse, purposeKey: nil))
        driver.call(client, .invalidateSession(ids[index]))
    }
    let elapsed = nanoseconds(clock.now - start)
    guard driver.core.sessionIDs.count == sessions else { fatalError("churn left \(driver.core.sessionIDs.count)") }
    return (Double(2 * pairs) / elapsed * 1e9, driver.sink)
}

/// Milliseconds of one `SetLocationServices(false)` and one `(true)`, each session watched by a diagnostics stream.
func globalSwitch(apps: Int, sessions: Int, flips: Int) -> (off: Double, on: Double, messages: Int, sink: Int) {
    var driver = Driver(apps: apps)
    let clients = driver.launchAuthorizedApps(apps)
    for index in 0..<sessions {
        let client = clients[index % apps]
        let id = driver.create(client)
        driver.call(client, .sessionDiagnostics(id.description))
    }
    let admin = driver.connect()
    var off: [Double] = []
    var on: [Double] = []
    var messages = 0
    for _ in 0..<flips {
        for enabled in [false, true] {
            let start = clock.now
            let actions = driver.call(admin, .setLocationServices(enabled))
            let elapsed = nanoseconds(clock.now - start) / 1e6
            if enabled { on.append(elapsed) } else { off.append(elapsed) }
            messages = actions.reduce(0) { count, action in
                if case .emit(_, .diagnostic) = action { count + 1 } else { count }
            }
        }
    }
    return (median(off), median(on), messages, driver.sink)
}

/// Nanoseconds per timer wake-up that expires one lingering session, among `sessions` lingering ones.
///
/// Each session has its own connection, closed at its own instant, so every deadline is distinct; one
/// more connection per app keeps the app running, so only lingering deadlines are due. The median of
/// `rounds` rounds of `expiries` wake-ups each.
func deadlines(apps: Int, sessions: Int, rounds: Int, expiries: Int) -> (perEvent: Double, sink: Int) {
    var driver = Driver(apps: apps)
    _ = driver.launchAuthorizedApps(apps)
    var owners: [ClientID] = []
    for index in 0..<sessions {
        let client = driver.connect()
        driver.call(client, .hello(appID: Driver.appID(index % apps), state: nil))
        _ = driver.create(client)
        owners.append(client)
    }
    var timer: Instant?
    for client in owners {
        driver.now = driver.now.adding(.seconds(0.000_001))
        for case .armTimer(let next) in driver.send(.disconnected(client)) { timer = next }
    }
    var expired = 0
    var perEvent: [Double] = []
    for _ in 0..<rounds {
        var count = 0
        let start = clock.now
        while count < expiries, let due = timer {
            driver.now = due
            for case .armTimer(let next) in driver.send(.deadlineReached) { timer = next }
            count += 1
        }
        perEvent.append(nanoseconds(clock.now - start) / Double(count))
        expired += count
    }
    guard driver.core.sessionIDs.count == sessions - expired else { fatalError("a wake-up expired more than one") }
    return (median(perEvent), driver.sink)
}

// MARK: Report

struct Row {
    var measure: String
    var result: String
    var target: String
    var met: Bool
}

/// A positive number with thousands separators and `decimals` places (no libm: rounding by hand).
func format(_ value: Double, decimals: Int = 0) -> String {
    var scale = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int(value * Double(scale) + 0.5)
    guard decimals > 0 else { return grouped(scaled) }
    let digits = String(scaled % scale)
    return grouped(scaled / scale) + "." + String(repeating: "0", count: decimals - digits.count) + digits
}

func grouped(_ value: Int) -> String {
    let digits = Array(String(value))
    var text = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
        text.append(digit)
    }
    return text
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

func printTable(_ rows: [Row]) {
    let widths = [
        max(7, rows.map(\.measure.count).max() ?? 0), max(6, rows.map(\.result.count).max() ?? 0),
        max(6, rows.map(\.target.count).max() ?? 0),
    ]
    print("| \(pad("measure", widths[0])) | \(pad("result", widths[1])) | \(pad("target", widths[2])) |   |")
    print(
        "|\(String(repeating: "-", count: widths[0] + 2))|\(String(repeating: "-", count: widths[1] + 2))|"
            + "\(String(repeating: "-", count: widths[2] + 2))|---|"
    )
    for row in rows {
        print(
            "| \(pad(row.measure, widths[0])) | \(pad(row.result, widths[1])) | \(pad(row.target, widths[2])) | "
                + "\(row.met ? "✓" : "✗") |"
        )
    }
}

let arguments = CommandLine.arguments
let quick = arguments.contains("--quick")
/// `--only churn|switch|deadlines` runs one measure, for profiling.
let only = arguments.firstIndex(of: "--only").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
func runs(_ measure: String) -> Bool { only == nil || only == measure }
let scale = quick ? 10 : 1
let apps = 1_000 / scale
let population = 100_000 / scale
var rows: [Row] = []
var sink = 0

if runs("churn") {
    let churned = churn(apps: apps, sessions: population, pairs: quick ? 50_000 : 500_000)
    sink &+= churned.sink
    rows.append(
        Row(
            measure: "create/invalidate churn, \(grouped(population)) live sessions, \(grouped(apps)) apps",
            result: "\(format(churned.eventsPerSecond)) events/s",
            target: "≥ 1,000,000 events/s",
            met: churned.eventsPerSecond >= 1_000_000
        )
    )
}

if runs("switch") {
    let flips = globalSwitch(apps: apps, sessions: population, flips: quick ? 3 : 7)
    sink &+= flips.sink
    // The target is for 100k sessions; a quick run scales it to its population.
    let target = 20.0 / Double(scale)
    for (name, milliseconds) in [("off", flips.off), ("on", flips.on)] {
        rows.append(
            Row(
                measure: "SetLocationServices(\(name == "on")), \(grouped(population)) sessions + streams (median)",
                result: "\(format(milliseconds, decimals: 2)) ms, \(grouped(flips.messages)) diagnostics sent",
                target: "< \(format(target, decimals: 0)) ms",
                met: milliseconds < target
            )
        )
    }
}

var perEvent: [(sessions: Int, nanoseconds: Double)] = []
for sessions in quick ? [1_000, 10_000] : [1_000, 10_000, 100_000] where runs("deadlines") {
    let result = deadlines(apps: sessions / 100, sessions: sessions, rounds: 3, expiries: min(sessions / 4, 10_000))
    sink &+= result.sink
    perEvent.append((sessions, result.perEvent))
}
let base = perEvent.first?.nanoseconds ?? 0
for (sessions, nanoseconds) in perEvent {
    let growth = nanoseconds / base
    rows.append(
        Row(
            measure: "deadline wake-up expiring 1 of \(grouped(sessions)) lingering sessions",
            result: "\(format(nanoseconds)) ns/event (×\(format(growth, decimals: 2)))",
            target: "flat: ≤ ×2 the 1,000 case",
            met: growth <= 2
        )
    )
}

print("locd-core-bench\(quick ? " --quick" : ""): LocationCore alone, \(sink) actions")
printTable(rows)
