import CEpoll
import CSdBus
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The connection to the bus and the one thread that uses it.
///
/// sd-bus is not thread-safe: every call on the bus, and all state of the objects served on it, stays on the
/// thread that ``run()`` runs on. So do the connections to locd that serve clients (``LocdLink``): the thread waits
/// for the bus, them and its timers together. Other threads (the prompt stream's task) hand it work with
/// ``post(_:)`` or ``perform(_:)``, which wake it through an eventfd.
final class BusConnection: LinkWatcher, @unchecked Sendable {
    // @unchecked: `bus`, `timers` and `links` are used on the bus thread only; `inbox` is behind its Mutex.
    let bus: OpaquePointer
    private let wake: Int32
    private let inbox = Mutex(Inbox())
    private var timers = TimerQueue<() -> Void>()
    /// The epoll set of the connections to locd, and each connection by its token (never reused).
    private let linkEvents: Int32
    private var links: [UInt64: LocdLink] = [:]
    private var nextToken: UInt64 = 1
    /// The last wait found a connection to locd ready: the set is read then, and not at every turn.
    private var linksReady = false

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
        // Set last, once it is good: with every property set, a throw would run deinit, which would close and
        // unref a second time what was closed here.
        let events = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard events >= 0 else {
            let code = -errno
            sd_bus_flush_close_unref(opened)
            close(wake)
            throw BusFailure(doing: "create an epoll set", code: code)
        }
        linkEvents = events
    }

    deinit {
        sd_bus_flush_close_unref(bus)
        close(wake)
        close(linkEvents)
    }

    /// Waits for `descriptor` to have bytes to read, for `link`; returns the token that names the watch, or `nil`
    /// when it cannot (errno says why). On the bus thread.
    func watch(_ descriptor: Int32, _ link: LocdLink) -> UInt64? {
        let token = nextToken
        nextToken += 1
        guard control(EPOLL_CTL_ADD, descriptor, token, writable: false) else { return nil }
        links[token] = link
        return token
    }

    /// Whether the watch also waits for room to write. On the bus thread.
    func watchWritable(_ descriptor: Int32, token: UInt64, _ writable: Bool) {
        _ = control(EPOLL_CTL_MOD, descriptor, token, writable: writable)
    }

    /// Ends a watch, before its descriptor is closed. On the bus thread.
    func unwatch(_ descriptor: Int32, token: UInt64) {
        var event = epoll_event()
        _ = epoll_ctl(linkEvents, EPOLL_CTL_DEL, descriptor, &event)
        links[token] = nil
    }

    private func control(_ operation: Int32, _ descriptor: Int32, _ token: UInt64, writable: Bool) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
        event.data.u64 = token
        return epoll_ctl(linkEvents, operation, descriptor, &event) == 0
    }

    /// Serves the connections to locd that are ready; whether any was.
    private func serveLinks() -> Bool {
        guard linksReady else { return false }
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        let count = epoll_wait(linkEvents, &events, Int32(events.count), 0)
        // A full batch may have left more behind.
        linksReady = count == events.count
        guard count > 0 else { return false }
        for event in events[..<Int(count)] {
            // A handler of an earlier event may have closed this link: its token is gone then.
            guard let link = links[event.data.u64] else { continue }
            if event.events & EPOLLOUT.rawValue != 0 { link.writable() }
            if event.events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { link.readable() }
        }
        return true
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
            let served = serveLinks()
            if !work.isEmpty || served || fireTimers() { continue }
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

    /// Sleeps until the bus, the inbox, a connection to locd or the next timer has something.
    private func waitForEvents() throws(BusFailure) {
        let events = sd_bus_get_events(bus)
        if events < 0 { throw BusFailure(doing: "serve the bus", code: events) }
        var descriptors = [
            pollfd(fd: sd_bus_get_fd(bus), events: Int16(events), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            pollfd(fd: linkEvents, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&descriptors, 3, timeoutMilliseconds())
        linksReady = descriptors[2].revents & Int16(POLLIN) != 0
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
