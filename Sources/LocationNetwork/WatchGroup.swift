import Foundation
import JSON
import Logging
import NIOCore
import Varlink

/// One schedule of asking (SEMANTICS U9–U12, U21, U24–U26): the Watches with the same settings, the access points
/// they share, the policy, the answers kept, the request under way. It exists while one of its Watches is open,
/// and reads and asks nothing once it is stopped. Loop-bound: used on the server's event loop only.
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
    private var cache = AnswerCache()
    private let refusedKeys: RefusedKeys
    /// Whether a refused scan was logged already: it is logged once per schedule (U24).
    private var scanRefusalLogged = false

    init(
        settings: NetworkSettings,
        loop: any EventLoop,
        client: GeolocateClient,
        refusedKeys: RefusedKeys,
        logger: Logger
    ) {
        self.settings = settings
        self.loop = loop
        self.client = client
        self.refusedKeys = refusedKeys
        self.logger = logger
        policy = AskingPolicy(interval: settings.interval, minimumInterval: settings.minimumInterval)
        if let reason = refusedKeys.reason(for: settings.url) {
            policy.refuseKey()
            lastEvent = WatchEvent.lost(reason)
        }
    }

    var isEmpty: Bool { watchers.isEmpty }

    /// A Watch joins: it gets the last event at once, and the first Watch starts the reading.
    func add(_ connection: VarlinkConnection, serial: UInt64) {
        watchers[connection.id] = (connection, serial)
        if let lastEvent { connection.reply(serial, lastEvent, continues: true, backlog: .keepNewest) }
        guard reader == nil else { return }
        let bound = NIOLoopBound(self, eventLoop: loop)
        let loop = self.loop
        let reader = AccessPointReader(
            source: settings.accessPoints,
            changed: { snapshot in loop.execute { bound.value.received(snapshot) } },
            scanned: { refusal in loop.execute { bound.value.scanned(refusal) } }
        )
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
        if snapshot.connected == true, self.snapshot?.connected == false {
            logger.info("connected again: asking \(settings.loggedURL) without waiting out the backoff")
            policy.connectivityReturned()
        }
        self.snapshot = snapshot
        evaluate()
    }

    private func scanned(_ refusal: String?) {
        guard let refusal, !scanRefusalLogged else { return }
        scanRefusalLogged = true
        let advice =
            "see locd-network.conf (wpa_supplicant) or polkit's org.freedesktop.NetworkManager.wifi.scan (NetworkManager)"
        logger.notice(
            "the access points were last scanned more than \(Int(settings.interval)) s ago and a scan was refused (\(refusal)): asking with the list as it is; \(advice)"
        )
    }

    private static func now() -> Double { AccessPointScan.monotonicNow() }

    /// The most seconds after the start of the next UTC day that a schedule stopped by the daily limit waits, chosen
    /// at random, so that the service's clients do not all come back at midnight (U21).
    static let dailySpread = 600.0

    /// Asks, waits or reports that there is nothing to send, as the policy says.
    private func evaluate() {
        guard !stopped, request == nil, let snapshot else { return }
        timer?.cancel()
        timer = nil
        let sending = AccessPoint.sendable(snapshot.points)
        let now = Self.now()
        let bssids = sending.map(\.macAddress)
        switch policy.decide(now: now, sending: bssids, considerIp: settings.considerIp, scanned: snapshot.scanned) {
        case .ask:
            if let kept = cache.answer(for: bssids, now: now) {
                policy.asked(at: now, sending: bssids)
                policy.answered(success: true)
                logger.debug("the same \(bssids.count) access points as an answer kept: no request (U25)")
                send(
                    WatchEvent.position(
                        kept,
                        request: GeolocateRequest(considerIp: settings.considerIp, accessPoints: sending),
                        timestamp: Date().timeIntervalSince1970
                    )
                )
                evaluate()
            } else {
                ask(sending, at: now)
            }
        case .wait(let until):
            schedule(at: until, now: now)
        case .scan(let until):
            policy.scanRequested(at: now)
            logger.debug(
                "the access points were last scanned \(Int(now - (snapshot.scanned ?? now))) s ago: asking for a scan"
            )
            reader?.requestScan()
            schedule(at: until, now: now)
        case .stopped:
            break
        case .nothingToSend:
            policy.noneInView()
            let why = snapshot.note.map { " (\($0))" } ?? ""
            lose("no Wi-Fi access point in view and considerIp is false\(why)")
        }
    }

    private func schedule(at until: Double, now: Double) {
        let bound = NIOLoopBound(self, eventLoop: loop)
        timer = loop.scheduleTask(in: .nanoseconds(Int64(min(max(0, until - now), 2 * 86_400) * 1e9) + 1_000_000)) {
            bound.value.evaluate()
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
            cache.keep(answer, for: request.accessPoints.map(\.macAddress), now: Self.now())
            let timestamp = Date().timeIntervalSince1970
            logger.info(
                "\(settings.loggedURL) answered a position from \(request.accessPoints.count) access points, ±\(Int(answer.accuracy)) m"
            )
            send(WatchEvent.position(answer, request: request, timestamp: timestamp))
        case .failure(let failure):
            policy.answered(success: false)
            let now = Self.now()
            switch failure {
            case .keyInvalid(let reason):
                policy.refuseKey()
                if refusedKeys.refuse(settings.url, reason: reason) {
                    logger.error("no position from \(settings.loggedURL): \(reason)")
                }
            case .dailyLimitExceeded:
                let spread = Double.random(in: 0...Self.dailySpread)
                let wait = RetryAfter.untilNextUTCDay(from: Date()) + spread
                policy.wait(until: now + wait)
                logger.warning("no position from \(settings.loggedURL): \(failure); asking again in \(Int(wait)) s")
            case .refused(_, let retryAfter?):
                policy.wait(until: now + retryAfter)
                let wait = max(retryAfter, policy.pause)
                logger.warning(
                    "no position from \(settings.loggedURL): \(failure); asking again in \(Int(wait)) s at the earliest"
                )
            default:
                logger.warning(
                    "no position from \(settings.loggedURL): \(failure); asking again in \(Int(policy.pause)) s at the earliest"
                )
            }
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
