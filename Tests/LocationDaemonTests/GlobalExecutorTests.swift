import Foundation
import LocationTestSupport
import Testing

/// locd's Swift concurrency runs on NIO's event loops, not on libdispatch's worker pool, whose monitor wakes an idle
/// process once a second (docs/PERFORMANCE.md, "No libdispatch worker pool"; `locd-bench --only idle` counts the
/// wake-ups of the shipped build).
@Suite("Global executor")
struct GlobalExecutorTests {
    /// The names of the process's threads, from /proc.
    private func threadNames(_ pid: Int32) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").map { task in
            try String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test("PERFORMANCE, no libdispatch worker pool: a started locd runs its tasks on NIO's singleton event loops")
    func tasksOnEventLoops() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        // The service group's task started the daemon before READY=1: with the hook installed it ran on the
        // singleton group, whose threads only exist once a job was enqueued on it.
        let names = try threadNames(daemon.pid)
        #expect(names.contains { $0.hasPrefix("NIO-SGLTN-") }, "threads: \(names)")
        #expect(daemon.stop() == 0)
    }
}
