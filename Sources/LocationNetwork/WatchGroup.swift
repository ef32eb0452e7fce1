import Foundation
import JSON
import Logging
import NIOCore
import Varlink

/// One schedule of asking (SEMANTICS U9–U12): the Watches with the same settings, the access points they share, the
/// policy, the request under way. It exists while one of its Watches is open, and reads and asks nothing once
/// it is stopped. Loop-bound: used on the server's event loop only.
final class WatchGroup {
    let settings: NetworkSettings
    private let loop: any EventLoop
    private let client: GeolocateClient
    private let logger: Logger
    private var policy: AskingPolicy
    private var watchers: [UInt64: (connection: VarlinkConnection, serial: UInt64)] = [:]
    private var reader: AccessPointReader?
    private var snapshot: AccessPointSnapshot?
    private var timer: Scheduled<Void>?
    private var request: Task<Void, Never>?
    /// The last position or lost sent, for Watches that join later, and so that a lost is not repeated.
    private var lastEvent: JSONObject?
    private var stopped = false

    init(settings: NetworkSettings, loop: any EventLoop, client: GeolocateClient, logger: Logger) {
        self.settings = settings
        self.loop = loop
        self.client = client
        self.logger = logger
        policy = AskingPolicy(interval: settings.interval, minimumInterval: settings.minimumInterval)
    }

    var isEmpty: Bool { watchers.isEmpty }

    /// A Watch joins: it gets the last event at once, and the first Watch starts the reading.
    func add(_ connection: VarlinkConnection, serial: UInt64) {
        watchers[connection.id] = (connection, serial)
        if let lastEvent { connection.reply(serial, lastEvent, continues: true, backlog: .keepNewest) }
        guard reader == nil else { return }
        let bound = NIOLoopBound(self, eventLoop: loop)
        let loop = self.loop
        let reader = AccessPointReader(source: settings.accessPoints) { snapshot in
            loop.execute { bound.value.received(snapshot) }
        }
        self.reader = reader
        logger.info("reading the access points (\(settings.accessPoints.rawValue)) for \(settings.loggedURL)")
        reader.start()
    }

    /// A Watch leaves; the last one stops the reading, the timer and the request under way.
    func remove(_ id: UInt64) {
        watchers.removeValue(forKey: id)
        guard watchers.isEmpty, !stopped else { return }
        stopped = true
        reader?.stop()
        timer?.cancel()
        request?.cancel()
        logger.info("no Watch open for \(settings.loggedURL): reading and asking nothing")
    }

    private func received(_ snapshot: AccessPointSnapshot) {
        guard !stopped else { return }
        if snapshot.note != self.snapshot?.note, let note = snapshot.note { logger.notice("access points: \(note)") }
        self.snapshot = snapshot
        evaluate()
    }

    private static func now() -> Double { Double(NIODeadline.now().uptimeNanoseconds) / 1e9 }

    /// Asks, waits or reports that there is nothing to send, as the policy says.
    private func evaluate() {
        guard !stopped, request == nil, let snapshot else { return }
        timer?.cancel()
        timer = nil
        let sending = AccessPoint.sendable(snapshot.points)
        let now = Self.now()
        switch policy.decide(now: now, sending: sending.map(\.macAddress), considerIp: settings.considerIp) {
        case .ask:
            ask(sending, at: now)
        case .wait(let until):
            let bound = NIOLoopBound(self, eventLoop: loop)
            timer = loop.scheduleTask(in: .nanoseconds(Int64(max(0, until - now) * 1e9) + 1_000_000)) {
                bound.value.evaluate()
            }
        case .nothingToSend:
            policy.noneInView()
            let why = snapshot.note.map { " (\($0))" } ?? ""
            lose("no Wi-Fi access point in view and considerIp is false\(why)")
        }
    }

    private func ask(_ sending: [AccessPoint], at now: Double) {
        policy.asked(at: now, sending: sending.map(\.macAddress))
        let request = GeolocateRequest(considerIp: settings.considerIp, accessPoints: sending)
        logger.debug(
            "asking \(settings.loggedURL) with \(sending.count) access points (considerIp \(settings.considerIp))"
        )
        let bound = NIOLoopBound(self, eventLoop: loop)
        let (loop, client, url) = (self.loop, self.client, settings.url)
        self.request = Task {
            let result = await client.locate(url: url, request)
            loop.execute { bound.value.answered(result, request: request) }
        }
    }

    private func answered(_ result: Result<GeolocateAnswer, GeolocateFailure>, request: GeolocateRequest) {
        self.request = nil
        guard !stopped else { return }
        switch result {
        case .success(let answer):
            policy.answered(success: true)
            let timestamp = Date().timeIntervalSince1970
            logger.info(
                "\(settings.loggedURL) answered a position from \(request.accessPoints.count) access points, ±\(Int(answer.accuracy)) m"
            )
            send(WatchEvent.position(answer, request: request, timestamp: timestamp))
        case .failure(let failure):
            policy.answered(success: false)
            logger.warning(
                "no position from \(settings.loggedURL): \(failure); asking again in \(Int(policy.pause)) s at the earliest"
            )
            send(WatchEvent.lost(failure.description))
        }
        evaluate()
    }

    /// Sends a lost, unless the last event was the same lost.
    private func lose(_ reason: String) {
        let event = WatchEvent.lost(reason)
        guard event != lastEvent else { return }
        logger.notice("no position for \(settings.loggedURL): \(reason)")
        send(event)
    }

    private func send(_ event: JSONObject) {
        lastEvent = event
        for (connection, serial) in watchers.values {
            connection.reply(serial, event, continues: true, backlog: .keepNewest)
        }
    }
}
