import Foundation
import LocationCore
import NIOCore

/// The `nmea` provider: replays an NMEA 0183 file in real time, looping — a simulated route (U3).
///
/// Each start reads the file afresh (so an edited route is picked up), then delivers its epochs at the
/// pace of their UTC times divided by `speed-factor`, the first at once, and starts over after the last.
/// Fixes are stamped with the wall clock when delivered: the file's times are the past. Lines that cannot
/// be used are skipped and counted in one warning per start; a file with no usable fix fails the provider
/// until the next start.
package final class NMEAReplayProvider: LocationProvider {
    package let kind = "nmea"
    package private(set) var state = ProviderState.stopped
    /// The file's unusable lines at the last start, by reason.
    package private(set) var lastParse = NMEASentenceParser()
    private let path: String
    private let speedFactor: Double
    private let eventLoop: EventLoop
    private let unixTime: @Sendable () -> Double
    private var handler: ((ProviderUpdate) -> Void)?
    private var route: NMEARoute?
    private var next: Scheduled<Void>?
    /// Counts starts and stops, so that work scheduled by an earlier start is dropped.
    private var generation = 0

    /// Files larger than this are refused: a day of 1 Hz GGA and RMC is about 12 MB.
    package static let maximumFileBytes = 64 << 20

    /// A provider of the `[provider]` keys `file` and `speed-factor`.
    /// - Parameters:
    ///   - speedFactor: how many times faster than real time to replay, > 0.
    ///   - unixTime: the wall clock that stamps the fixes (tests pass a fixed one).
    package init(
        file path: String,
        speedFactor: Double,
        eventLoop: EventLoop,
        unixTime: @escaping @Sendable () -> Double = UnixTime.now
    ) {
        self.path = path
        self.speedFactor = speedFactor > 0 ? speedFactor : 1
        self.eventLoop = eventLoop
        self.unixTime = unixTime
    }

    package var source: String { path }

    package func start(_ handler: @escaping (ProviderUpdate) -> Void) {
        eventLoop.preconditionInEventLoop()
        guard state == .stopped else { return }
        generation += 1
        let current = generation
        self.handler = handler
        state = .connecting
        // On the next turn of the loop: the daemon is still carrying out the action that started us.
        eventLoop.assumeIsolated().execute { [self] in
            guard generation == current else { return }
            load()
        }
    }

    package func stop() {
        eventLoop.preconditionInEventLoop()
        generation += 1
        next?.cancel()
        next = nil
        route = nil
        state = .stopped
        handler = nil
    }

    private func load() {
        // One byte past the limit is enough to know the file is too large.
        guard let file = FileHandle(forReadingAtPath: path),
            let data = try? file.read(upToCount: Self.maximumFileBytes + 1) ?? Data()
        else {
            return fail("cannot read \(path): check that it exists and that locd may read it")
        }
        try? file.close()
        guard data.count <= Self.maximumFileBytes else {
            return fail("\(path) is larger than \(Self.maximumFileBytes >> 20) MiB; replay a shorter route")
        }
        var parser = NMEASentenceParser()
        let route = NMEARoute(sentences: parser.sentences(in: data))
        lastParse = parser
        guard route.epochs.contains(where: { $0.fix != nil }) else {
            let rejected = parser.rejected > 0 ? " (\(parser.rejected) lines rejected: \(parser.rejectionSummary))" : ""
            return fail("\(path) has no GGA or RMC sentence with a fix\(rejected); give a file of NMEA 0183 sentences")
        }
        self.route = route
        state = .running
        handler?(.state(.running, detail: "\(route.epochs.count) epochs from \(path)"))
        if parser.rejected > 0 {
            handler?(.warning("\(path): skipped \(parser.rejected) unusable lines: \(parser.rejectionSummary)"))
        }
        deliver(0)
    }

    private func fail(_ detail: String) {
        state = .failed
        handler?(.state(.failed, detail: detail))
    }

    /// Delivers epoch `index` and schedules the next, wrapping round to the first.
    private func deliver(_ index: Int) {
        guard let route else { return }
        let epoch = route.epochs[index]
        if var fix = epoch.fix {
            fix.timestamp = unixTime()
            handler?(.fix(fix))
        } else {
            handler?(.fixLost(reason: "the NMEA file reports no fix here (GGA quality 0 or RMC status V)"))
        }
        let following = index + 1 < route.epochs.count ? index + 1 : 0
        let gap = following == 0 ? route.loopPause : route.epochs[following].offset - epoch.offset
        let current = generation
        // At most a day: a tiny speed factor must not overflow the deadline.
        let nanoseconds = Int64(min(max(gap / speedFactor, 0), 86_400) * 1e9)
        next = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) { [self] in
            guard generation == current else { return }
            deliver(following)
        }
    }
}
