import Foundation

/// Scenario 10: the GeoClue churn cycle (CreateClient → Set DesktopId → Set RequestedAccuracyLevel → Start → Stop →
/// DeleteClient) from 1 and from `clients` Python GI processes, against each ``GeoClueTarget`` in turn on one private
/// bus, in alternating rounds: every round measures every target, in an order that rotates from round to round, so
/// that a change of the machine's load falls on all of them alike.
struct GeoClueScenario {
    var rounds: Int
    /// How long each measurement of a round lasts, for 1 client and again for all of them.
    var seconds: Double
    var clients = 8
    var directory: String

    /// The figures of one target, summed over the rounds.
    struct Measured {
        var singleCycles = 0
        var singleSeconds = 0.0
        var singleLatencies = Latencies()
        var manyCycles = 0
        var manySeconds = 0.0
        /// Each round's cycles per second with every client: the spread a busy or uneven machine gives.
        var manyRates: [Double] = []
        /// CPU seconds spent during the runs with every client, by whom: the service's processes (with locd for
        /// locd-geoclue), the bus daemon, the client processes.
        var manyCPU = CPUShare()

        var singleRate: Double { Double(singleCycles) / singleSeconds }
        var manyRate: Double { Double(manyCycles) / manySeconds }
    }

    struct Result {
        var measured: [GeoClueTarget: Measured] = [:]
        /// Targets that could not be measured here, and why.
        var skipped: [GeoClueTarget: String] = [:]
    }

    /// The churn's app id: GeoClue's configuration allows it as a system app, locd is told to allow it while in use.
    static let appID = "gnome-datetime-panel"

    /// Runs the rounds against `locd` (already started) and the other targets; throws when the trivial service or
    /// locd-geoclue could not be measured. GeoClue is skipped, with the reason, where it cannot run.
    func run(locd: DaemonUnderTest) throws -> Result {
        let bus = try PrivateBus(directory: directory)
        let workers = try startClients(bus)
        defer { for worker in workers { worker.stop() } }
        var result = Result()
        if let absence = GeoClueTarget.geoclueAbsence { result.skipped[.geoclue] = absence }
        for round in 0..<rounds {
            let targets = GeoClueTarget.allCases.filter { result.skipped[$0] == nil }
            for offset in targets.indices {
                let target = targets[(offset + round) % targets.count]
                FileHandle.standardError.write(Data("  round \(round + 1): \(target.label)\n".utf8))
                do {
                    try measure(
                        target,
                        bus: bus,
                        workers: workers,
                        locd: locd,
                        into: &result.measured[target, default: Measured()]
                    )
                } catch let error where target == .geoclue {
                    result.skipped[.geoclue] = "GeoClue did not serve the churn here: \(error)"
                    result.measured[.geoclue] = nil
                }
            }
        }
        return result
    }

    /// The client processes, each connected to the bus: `/usr/bin/python3` with the script of ``GeoClueChurnClient``.
    private func startClients(_ bus: PrivateBus) throws -> [LineProcess] {
        let script = directory + "/geoclue_churn.py"
        try GeoClueChurnClient.script.write(toFile: script, atomically: true, encoding: .utf8)
        let workers = try (0..<clients).map { index in
            try LineProcess(
                name: "churn client \(index + 1)",
                ["/usr/bin/python3", script],
                environment: bus.environment,
                logPath: "\(directory)/client-\(index + 1).log"
            )
        }
        for worker in workers {
            do {
                _ = try worker.readLine(timeout: 30)
            } catch {
                throw BenchError.failed(
                    "\(error)\n(the clients need /usr/bin/python3 with gi: python3-gi, which .ci/install-deps --tests installs)"
                )
            }
        }
        return workers
    }

    /// One round of one target: started, warmed up, measured with 1 client then all of them, stopped.
    private func measure(
        _ target: GeoClueTarget,
        bus: PrivateBus,
        workers: [LineProcess],
        locd: DaemonUnderTest,
        into measured: inout Measured
    ) throws {
        let first = workers[0]
        var processes = try target.start(bus: bus, directory: directory, locdSocket: locd.socketPath)
        defer {
            for process in processes.reversed() { process.stop() }
            _ = try? first.ask("unowned 10", timeout: 15)
        }
        try first.ask("owned 10", timeout: 15)
        if target == .geoclue { processes.append(try GeoClueTarget.startAgent(bus: bus, directory: directory)) }
        // Warm-up, not counted: each client's first calls (GeoClue's wait for its agent, locd-geoclue's first
        // connection to locd for each peer).
        _ = try churn(workers, seconds: min(0.5, seconds))
        let single = try churn([first], seconds: seconds)
        measured.singleCycles += single.count
        measured.singleSeconds += seconds
        for time in single.times { measured.singleLatencies.record(nanoseconds: time * 1000) }
        let pids = CPUShare.Pids(
            service: processes.map(\.pid),
            locd: target == .locd ? [locd.pid] : [],
            bus: [bus.pid],
            clients: workers.map(\.pid)
        )
        let before = CPUShare(pids)
        let many = try churn(workers, seconds: seconds).count
        measured.manyCycles += many
        measured.manySeconds += seconds
        measured.manyRates.append(Double(many) / seconds)
        measured.manyCPU.add(CPUShare(pids).minus(before))
        if let ended = processes.first(where: { !$0.isRunning }) {
            throw BenchError.failed("\(ended.name) exited during the round; its log:\n\(ended.logTail())")
        }
    }

    /// Runs the cycle from `workers` at once for `seconds`: how many cycles they made, and each cycle's time in
    /// microseconds.
    private func churn(_ workers: [LineProcess], seconds: Double) throws -> (count: Int, times: [UInt64]) {
        for worker in workers { try worker.send("run \(seconds)") }
        var count = 0
        var times: [UInt64] = []
        var failure: String?
        // Every answer is read before a failure is thrown, so that none is taken for the answer to a later command.
        for worker in workers {
            let answer = try worker.readLine(timeout: seconds + 60)
            let fields = answer.split(separator: " ")
            guard fields.first == "done", fields.count >= 2, let made = Int(fields[1]) else {
                failure = failure ?? "\(worker.name): \(answer)"
                continue
            }
            count += made
            times += fields.dropFirst(2).compactMap { UInt64($0) }
        }
        if let failure { throw BenchError.failed(failure) }
        return (count, times)
    }
}
