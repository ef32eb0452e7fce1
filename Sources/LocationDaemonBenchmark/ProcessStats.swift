import Foundation

/// What `/proc` says about the daemon: resident memory, CPU time and context switches.
struct ProcessStats {
    let pid: Int32

    /// `VmRSS` in bytes.
    func residentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw BenchError.failed("no VmRSS in /proc/\(pid)/status") }
        return kib * 1024
    }

    /// User plus system CPU time, in seconds, of every thread.
    func cpuSeconds() throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name, in parentheses, may hold spaces: fields are counted after its ")".
        guard let close = stat.lastIndex(of: ")") else { throw BenchError.failed("unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After ")": state is field 3, utime 14 and stime 15 (1-based in proc(5)).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw BenchError.failed("unreadable /proc/\(pid)/stat")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Voluntary and involuntary context switches of each thread, by thread id: each is one wake-up or
    /// preemption of that thread.
    func contextSwitches() throws -> [String: Int] {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        var counts: [String: Int] = [:]
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
            else { continue }
            var total = 0
            for line in status.split(separator: "\n")
            where line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                total += Int(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            }
            counts[task] = total
        }
        return counts
    }

    /// Context switches between two readings of ``contextSwitches()``: a thread in both counts its
    /// difference, a thread started between them all of its own. (Summing totals instead would go
    /// negative when a thread exits in between, taking its count with it.)
    static func switches(from before: [String: Int], to after: [String: Int]) -> Int {
        after.reduce(0) { total, thread in total + thread.value - (before[thread.key] ?? 0) }
    }

    /// The benchmark's own user plus system CPU time, in seconds.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Threads of the daemon.
    func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? 0
    }
}
