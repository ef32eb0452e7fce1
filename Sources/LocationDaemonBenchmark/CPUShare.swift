/// CPU seconds of the processes at work in a GeoClue churn run, by role: what the bus's clients cost each service.
struct CPUShare {
    /// The processes of each role.
    struct Pids {
        var service: [Int32]
        var locd: [Int32]
        var bus: [Int32]
        var clients: [Int32]
    }

    var service = 0.0
    var locd = 0.0
    var bus = 0.0
    var clients = 0.0

    init() {}

    /// The CPU time the processes have used so far (a process that is gone counts nothing).
    init(_ pids: Pids) {
        func sum(_ list: [Int32]) -> Double {
            list.reduce(0) { $0 + ((try? ProcessStats(pid: $1).cpuSeconds()) ?? 0) }
        }
        service = sum(pids.service)
        locd = sum(pids.locd)
        bus = sum(pids.bus)
        clients = sum(pids.clients)
    }

    func minus(_ other: CPUShare) -> CPUShare {
        var difference = CPUShare()
        difference.service = service - other.service
        difference.locd = locd - other.locd
        difference.bus = bus - other.bus
        difference.clients = clients - other.clients
        return difference
    }

    mutating func add(_ other: CPUShare) {
        service += other.service
        locd += other.locd
        bus += other.bus
        clients += other.clients
    }
}
