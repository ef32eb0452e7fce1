import CSdBus
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Reads the access points in view on a thread of its own, while a schedule needs them and only then (U12): once
/// at the start, then again whenever wpa_supplicant or NetworkManager signals anything (a BSS added or removed, a
/// property changed, the service appearing or leaving the bus), at most twice a second. Each reading that differs
/// from the one before goes to `changed`. No polling: between signals the thread sleeps in poll(2). A bus that
/// cannot be reached, or goes away, is reported and connected to again every few seconds. A scan asked for with
/// ``requestScan()`` is asked of the supplicant on the same thread and bus (U24).
public final class AccessPointReader: Sendable {
    private let source: NetworkSettings.AccessPointSource
    private let changed: @Sendable (AccessPointSnapshot) -> Void
    private let scanned: @Sendable (String?) -> Void
    private let stopEvent: Int32
    /// Written by ``requestScan()``: the thread asks for a scan when it next wakes (U24).
    private let scanEvent: Int32
    private let stopping = Atomic<Bool>(false)
    /// The least time between two readings, in seconds.
    static let readingGap = 0.5

    /// - Parameters:
    ///   - changed: each reading that differs from the one before.
    ///   - scanned: the outcome of each scan asked for with ``requestScan()``: `nil` once the supplicant took it,
    ///     else why it did not.
    public init(
        source: NetworkSettings.AccessPointSource,
        changed: @escaping @Sendable (AccessPointSnapshot) -> Void,
        scanned: @escaping @Sendable (String?) -> Void = { _ in }
    ) {
        self.source = source
        self.changed = changed
        self.scanned = scanned
        stopEvent = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        scanEvent = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
    }

    deinit {
        close(stopEvent)
        close(scanEvent)
    }

    /// Asks the supplicant for a scan, on the reader's thread, soon (U24); requests made before it is done are one.
    public func requestScan() {
        var one: UInt64 = 1
        _ = write(scanEvent, &one, 8)
    }

    /// Starts the thread.
    public func start() {
        let thread = Thread { self.run() }
        thread.name = "access points"
        thread.start()
    }

    /// Ends the thread soon; nothing more goes to `changed` once a reading under way is done.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        var one: UInt64 = 1
        _ = write(stopEvent, &one, 8)
    }

    private var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// How long to wait before connecting again when the bus cannot be reached or went away, in seconds.
    static let reconnectDelay = 5.0

    private func run() {
        while !isStopping {
            connectAndServe()
            // The bus could not be reached, or went away (dbus restarted): connect again after a pause.
            var descriptor = pollfd(fd: stopEvent, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(Self.reconnectDelay * 1000))
        }
    }

    /// Connects, and reads until stopped or the bus fails.
    private func connectAndServe() {
        let bus: SystemBusClient
        do {
            bus = try SystemBusClient()
        } catch {
            changed(AccessPointSnapshot(points: [], note: error.description))
            return
        }
        let signalled = Signalled()
        let context = Unmanaged.passUnretained(signalled).toOpaque()
        for rule in Self.matchRules {
            _ = sd_bus_add_match(
                bus.bus,
                nil,
                rule,
                { _, context, _ in
                    guard let context else { return 0 }
                    Unmanaged<Signalled>.fromOpaque(context).takeUnretainedValue().dirty = true
                    return 0
                },
                context
            )
        }
        withExtendedLifetime(signalled) { serve(bus, signalled) }
    }

    /// Signals from either source, and either one coming or going.
    private static let matchRules = [AccessPointScan.wpaSupplicant, AccessPointScan.networkManager].flatMap { name in
        [
            "type='signal',sender='\(name)'",
            "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'",
        ]
    }

    private func serve(_ bus: SystemBusClient, _ signalled: Signalled) {
        var last: AccessPointSnapshot?
        let clock = ContinuousClock()
        var nextReading = clock.now
        while !isStopping {
            if signalled.dirty, clock.now >= nextReading {
                signalled.dirty = false
                nextReading = clock.now.advanced(by: .milliseconds(Int64(Self.readingGap * 1000)))
                let snapshot = AccessPointScan.read(source, on: bus) { isStopping }
                if isStopping { return }
                if snapshot != last {
                    last = snapshot
                    changed(snapshot)
                }
            }
            while true {
                let result = sd_bus_process(bus.bus, nil)
                if result < 0 {
                    changed(
                        AccessPointSnapshot(
                            points: [],
                            note: "the system bus went away: \(SystemBusClient.describe(result))"
                        )
                    )
                    return
                }
                if result == 0 { break }
            }
            guard sd_bus_is_open(bus.bus) > 0 else {
                changed(AccessPointSnapshot(points: [], note: "the system bus went away"))
                return
            }
            let left = clock.now.duration(to: nextReading).components
            let wait =
                signalled.dirty ? max(0, Int32(left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000) + 1) : -1
            if !waitForEvents(bus, timeout: wait) { return }
            var count: UInt64 = 0
            if read(scanEvent, &count, 8) == 8, count > 0 {
                scanned(AccessPointScan.requestScan(source, on: bus))
            }
        }
    }

    /// Sleeps until the bus has something, the timeout passes or ``stop()`` is called; false once stopped.
    private func waitForEvents(_ bus: SystemBusClient, timeout: Int32) -> Bool {
        let events = sd_bus_get_events(bus.bus)
        var descriptors = [
            pollfd(fd: sd_bus_get_fd(bus.bus), events: Int16(max(0, events)), revents: 0),
            pollfd(fd: stopEvent, events: Int16(POLLIN), revents: 0),
            pollfd(fd: scanEvent, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&descriptors, 3, timeout)
        return descriptors[1].revents & Int16(POLLIN) == 0 && !isStopping
    }
}

/// Whether a signal came since the last reading; used on the reader's thread only.
private final class Signalled {
    var dirty = true
}
