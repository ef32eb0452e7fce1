import CSdBus
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The connection to the bus and the one thread that uses it.
///
/// sd-bus is not thread-safe: every call on the bus, and all state of the objects served on it, stays on the
/// thread that ``run()`` runs on. Other threads (the tasks that talk to locd) hand it work with ``post(_:)`` or
/// ``perform(_:)``, which wake it through an eventfd.
final class BusConnection: @unchecked Sendable {
    // @unchecked: `bus` and `timers` are used on the bus thread only; `inbox` is behind its Mutex.
    let bus: OpaquePointer
    private let wake: Int32
    private let inbox = Mutex(Inbox())
    private var timers = TimerQueue<() -> Void>()

    private struct Inbox {
        var work: [@Sendable () -> Void] = []
        var stopping = false
        /// The eventfd was written since the bus thread last took the work: another post need not write it.
        var woken = false
    }

    /// Connects to the system bus: `DBUS_SYSTEM_BUS_ADDRESS` when set, else the system's own.
    init() throws(BusFailure) {
        var opened: OpaquePointer?
        let result = sd_bus_open_system(&opened)
        guard result >= 0, let opened else { throw BusFailure(doing: "connect to the system bus", code: result) }
        bus = opened
        wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            sd_bus_flush_close_unref(opened)
            throw BusFailure(doing: "create an eventfd", code: -errno)
        }
    }

    deinit {
        sd_bus_flush_close_unref(bus)
        close(wake)
    }

    /// Runs `work` on the bus thread, soon.
    func post(_ work: @escaping @Sendable () -> Void) {
        let wakes = inbox.withLock { inbox in
            inbox.work.append(work)
            defer { inbox.woken = true }
            return !inbox.woken
        }
        guard wakes else { return }
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    /// Runs `work` on the bus thread and returns its result: the caller waits, so each task has at most one
    /// piece of work in the inbox at a time.
    func perform<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            post { continuation.resume(returning: work()) }
        }
    }

    /// Runs `work` on the bus thread once `seconds` have passed; call it on the bus thread.
    func after(_ seconds: Double, _ work: @escaping () -> Void) {
        at(.now.advanced(by: .seconds(seconds)), work)
    }

    /// Runs `work` on the bus thread at `instant` (at once if it has passed); call it on the bus thread.
    func at(_ instant: ContinuousClock.Instant, _ work: @escaping () -> Void) {
        timers.add(at: instant, work)
    }

    /// Makes ``run()`` return after the work already posted.
    func stop() {
        post {}
        inbox.withLock { $0.stopping = true }
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    /// Serves the bus until ``stop()``; throws when the bus connection fails (the bus went away).
    func run() throws(BusFailure) {
        while true {
            try processPending()
            let (work, stopping) = inbox.withLock { inbox in
                defer {
                    inbox.work.removeAll(keepingCapacity: true)
                    inbox.woken = false
                }
                return (inbox.work, inbox.stopping)
            }
            for item in work { item() }
            if stopping { return }
            if !work.isEmpty || fireTimers() { continue }
            try waitForEvents()
        }
    }

    /// Lets sd-bus read, dispatch and write until it has nothing left to do.
    private func processPending() throws(BusFailure) {
        while true {
            let result = sd_bus_process(bus, nil)
            if result < 0 { throw BusFailure(doing: "serve the bus", code: result) }
            if result == 0 { return }
        }
    }

    /// Runs the timers that are due; whether any was.
    private func fireTimers() -> Bool {
        let due = timers.takeDue(at: ContinuousClock.now)
        for work in due { work() }
        return !due.isEmpty
    }

    /// Sleeps until the bus, the inbox or the next timer has something.
    private func waitForEvents() throws(BusFailure) {
        let events = sd_bus_get_events(bus)
        if events < 0 { throw BusFailure(doing: "serve the bus", code: events) }
        var descriptors = [
            pollfd(fd: sd_bus_get_fd(bus), events: Int16(events), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&descriptors, 2, timeoutMilliseconds())
        if descriptors[1].revents & Int16(POLLIN) != 0 {
            var count: UInt64 = 0
            _ = read(wake, &count, 8)
        }
    }

    /// The poll timeout: sd-bus's own (an absolute CLOCK_MONOTONIC time) or the next timer, whichever is first.
    private func timeoutMilliseconds() -> Int32 {
        var limit = Int64.max
        var busTimeout: UInt64 = 0
        if sd_bus_get_timeout(bus, &busTimeout) > 0, busTimeout != UInt64.max {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
            limit = busTimeout > nowMicroseconds ? Int64((busTimeout - nowMicroseconds) / 1000) + 1 : 0
        }
        if let next = timers.next {
            let left = ContinuousClock.now.duration(to: next)
            let milliseconds = max(
                0,
                left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            )
            limit = min(limit, milliseconds)
        }
        return limit == Int64.max ? -1 : Int32(clamping: limit)
    }
}

/// An sd-bus call that failed: what was being done and the errno it answered.
struct BusFailure: Error, CustomStringConvertible {
    var doing: String
    var code: Int32

    var description: String { "cannot \(doing): \(String(cString: strerror(-code)))" }
}
