import Foundation

/// Scenario 12: a focus change in a real sway session, through locd-agent, to locd's state (SEMANTICS L10–L11).
///
/// The benchmark moves the focus between the desktop's windows (sway's `focus` command, on its IPC socket) and
/// times each move from the command's sending to the `appStateChanged` event that shows the window's app
/// `background -> foreground`, read on an `Admin.Watch` stream of its own: sway's work, its event to locd-agent, the agent's
/// report (`SetDesktop`), locd's decision and the event's delivery. Then the desktop is left alone and locd-agent's
/// context switches are counted: an idle desktop should cost it no wake-up at all.
struct FocusScenario {
    var moves: Int
    var idleSeconds: Double
    /// How long one move may take before the scenario fails: a lost report, not a slow one.
    var moveTimeout = 5.0

    struct Result {
        var latencies: Latencies
        var agentSwitches: Int
        var idleSeconds: Double
        var settled: Double?
    }

    func run(_ desktop: FocusDesktop, watch: StreamSocket, daemon: DaemonUnderTest) throws -> Result {
        // The moves go on from the window after the one the warm-up left in front, so each changes the focus.
        let first = try warmUp(desktop, watch: watch) + 1
        var latencies = Latencies()
        for move in 0..<moves {
            let appID = desktop.appIDs[(first + move) % desktop.appIDs.count]
            let sent = Clock.unixTime
            try desktop.focus(appID)
            guard let received = try foreground(appID, on: watch, timeout: moveTimeout) else {
                try daemon.checkAlive("the focus moves")
                throw BenchError.failed(
                    "move \(move): no appStateChanged of \(appID) -> foreground within \(moveTimeout) s; sway's windows: "
                        + "\((try? desktop.ipc.windows()).map { "\($0)" } ?? "?"); locd-agent's log:\n\(desktop.agent.logTail())"
                )
            }
            latencies.record(seconds: received - sent)
        }
        let stats = ProcessStats(pid: desktop.agent.pid)
        let idle = IdleScenario(seconds: idleSeconds, quietSeconds: 1, settleLimit: 10)
        let settled = try idle.settle(stats)
        let before = try stats.contextSwitches()
        // The idle period is the measurement itself: nothing is awaited, only time is let pass.
        Thread.sleep(forTimeInterval: idleSeconds)
        let after = try stats.contextSwitches()
        guard desktop.agent.isRunning else {
            throw BenchError.failed("locd-agent exited; its log:\n\(desktop.agent.logTail())")
        }
        return Result(
            latencies: latencies,
            agentSwitches: ProcessStats.switches(from: before, to: after),
            idleSeconds: idleSeconds,
            settled: settled
        )
    }

    /// Moves the focus until a move shows on the stream: the agent has found sway and reported, every window's
    /// client has said `Hello`, and the stream is open. Returns the index of the app it left in front.
    private func warmUp(_ desktop: FocusDesktop, watch: StreamSocket) throws -> Int {
        let deadline = Clock.now + 30
        var move = 0
        while Clock.now < deadline {
            let index = move % desktop.appIDs.count
            move += 1
            try desktop.focus(desktop.appIDs[index])
            if try foreground(desktop.appIDs[index], on: watch, timeout: 1) != nil { return index }
        }
        throw BenchError.failed(
            "in 30 s no focus move reached locd's state; locd-agent's log:\n\(desktop.agent.logTail())"
        )
    }

    /// When the event saying `appID` moved from the background to the foreground arrived (`CLOCK_REALTIME`); nil past
    /// `timeout`. (A client's `Hello` is `notRunning -> foreground`: not a move.)
    private func foreground(_ appID: String, on watch: StreamSocket, timeout: Double) throws -> Double? {
        let deadline = Clock.now + timeout
        while let next = try watch.frame(timeout: max(0, deadline - Clock.now)) {
            let frame = next.bytes
            if let name = Wire.error(in: frame) { throw BenchError.failed("Admin.Watch answered \(name)") }
            guard Wire.string(after: "\"kind\":\"", in: frame) == "appStateChanged",
                Wire.string(after: "\"appId\":\"", in: frame) == appID,
                Wire.string(after: "\"detail\":\"", in: frame) == "background -> foreground"
            else { continue }
            return next.receivedAt
        }
        return nil
    }
}
