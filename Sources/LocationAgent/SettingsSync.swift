import Foundation
import JSON
import LocationProtocol
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The shell of ``SettingsSyncCore`` (SEMANTICS N7–N13): locd's event stream, reads and settings of the person's own
/// apps and switch, the permission store on the session bus, GNOME's switch through dconf, and the file of what both
/// sides agreed on. On the agent's one thread: every socket and pipe is polled by ``AgentShell`` beside the bus.
final class SettingsSync {
    private enum Tag {
        case apps, status
        case authorization(String)
        case services
    }

    private var core: SettingsSyncCore
    private let socketPath: String
    private let logger: Logger
    private let agreedPath: String
    private let store: PermissionStore
    private let locationSwitch: LocationSwitch?
    private let calls: LocdCalls<Tag>
    private var stream: LocdStream?
    private var streamRetry = 1.0
    private var streamDue: ContinuousClock.Instant?
    private var switchDue: ContinuousClock.Instant?
    private var lastUseDue: ContinuousClock.Instant
    private var read: (apps: JSONObject?, status: JSONObject?) = (nil, nil)
    private var storeAbsentSaid = false
    /// Whether locd's last `Status` said the person may administer (I3): their calls then name their own uid.
    private var administrator = false

    init(bus: SessionBus, socketPath: String, environment: [String: String], logger: Logger) throws(AgentFailure) {
        self.socketPath = socketPath
        self.logger = logger
        agreedPath = Self.agreedPath(environment: environment)
        let text = (try? String(contentsOfFile: agreedPath, encoding: .utf8)) ?? ""
        core = SettingsSyncCore(
            agreed: AgreedSettings(text: text),
            lastUsedInterval: Self.lastUsedInterval(environment: environment)
        )
        lastUseDue = .now.advanced(by: .seconds(core.lastUsedInterval))
        store = try PermissionStore(bus: bus)
        locationSwitch = LocationSwitch()
        calls = LocdCalls(socketPath: socketPath)
    }

    /// `$XDG_STATE_HOME/locd/desktop-settings`, `~/.local/state/locd/desktop-settings` without it (N10).
    static func agreedPath(environment: [String: String]) -> String {
        let state =
            environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return state + "/locd/desktop-settings"
    }

    /// N9's period of LAST_USED: `LOCD_AGENT_LAST_USED_INTERVAL` seconds (a whole number from 1 to 3600, for
    /// tests), 60 without it or when it is not one.
    static func lastUsedInterval(environment: [String: String]) -> Double {
        guard let text = environment["LOCD_AGENT_LAST_USED_INTERVAL"], let seconds = Int(text),
            (1...3600).contains(seconds)
        else { return SettingsSyncCore.defaultLastUsedInterval }
        return Double(seconds)
    }

    /// Opens locd's event stream, reads the store and GNOME's switch, and reads locd.
    func start() {
        openStream()
        store.read()
        startSwitch()
        perform(core.start())
    }

    /// Ends what the agent started for the settings: the switch's watch.
    func stop() { locationSwitch?.stop() }

    /// The descriptors to poll: locd's event stream, the calls' replies, the switch's watch.
    var fileDescriptors: [Int32] {
        [stream?.fileDescriptor, locationSwitch?.fileDescriptor].compactMap(\.self) + calls.fileDescriptors
    }

    /// The first timer due.
    var nextDue: ContinuousClock.Instant? {
        [streamDue, switchDue, lastUseDue].compactMap(\.self).min()
    }

    /// Reads what the descriptors `ready` have.
    func handle(ready: Set<Int32>) {
        if let stream, ready.contains(stream.fileDescriptor) { readStream() }
        if let descriptor = locationSwitch?.fileDescriptor, ready.contains(descriptor) { readSwitch() }
        let answered = Set(calls.fileDescriptors).intersection(ready)
        if !answered.isEmpty { readCalls(answered) }
    }

    /// After the bus was processed: what the store said, what waits in buffers, and the timers due.
    func afterBus() {
        for event in store.take() { storeSaid(event) }
        while let stream, stream.hasBufferedReply { readStream() }
        let now = ContinuousClock.now
        if let due = streamDue, due <= now {
            streamDue = nil
            openStream()
        }
        if let due = switchDue, due <= now {
            switchDue = nil
            startSwitch()
        }
        if lastUseDue <= now {
            lastUseDue = now.advanced(by: .seconds(core.lastUsedInterval))
            perform(core.lastUseDue(now: Self.unixNow))
        }
    }

    private static var unixNow: Double { Date().timeIntervalSince1970 }

    private func storeSaid(_ event: PermissionStore.Event) {
        switch event {
        case .entries(let entries):
            storeAbsentSaid = false
            perform(core.storeRead(entries, now: Self.unixNow))
        case .gone:
            logger.info("the permission store stopped; it is read again when it comes back")
            perform(core.storeRead(nil, now: Self.unixNow))
        case .absent(let reason):
            perform(core.storeRead(nil, now: Self.unixNow))
            guard !storeAbsentSaid else { return }
            storeAbsentSaid = true
            let advice = "desktop settings panels do not show locd's decisions; install xdg-desktop-portal for them"
            logger.notice("no permission store on the session bus (\(reason)): \(advice)")
        case .writeFailed(let reason):
            logger.warning("the permission store refused a write: \(reason)")
        }
    }

    private func openStream() {
        do {
            stream = try LocdStream(
                socketPath: socketPath,
                method: AdminMethod.watch.name,
                name: "the settings' events"
            )
            streamRetry = 1
            perform(core.locdChanged())
        } catch {
            streamLost("cannot reach locd at \(socketPath): \(error)")
        }
    }

    private func streamLost(_ reason: String) {
        stream = nil
        logger.info("\(reason); the desktop's settings follow locd again in \(Int(streamRetry)) s")
        streamDue = .now.advanced(by: .seconds(streamRetry))
        streamRetry = min(streamRetry * 2, 60)
    }

    private func readStream() {
        guard let stream else { return }
        for reply in stream.receive() {
            switch reply {
            case .parameters: perform(core.locdChanged())
            case .ended(let reason): return streamLost(reason)
            }
        }
    }

    private func startSwitch() {
        guard let locationSwitch else {
            logger.notice("dconf is not installed: GNOME's location switch is not followed")
            return
        }
        do {
            try locationSwitch.watch()
            perform(core.switchRead(try locationSwitch.read(), now: Self.unixNow))
            perform(core.accuracyRead(capped: try locationSwitch.readCapped(), now: Self.unixNow))
        } catch {
            logger.warning("cannot read GNOME's location switch: \(error); trying again in 60 s")
            locationSwitch.stop()
            switchDue = .now.advanced(by: .seconds(60))
        }
    }

    private func readSwitch() {
        guard let locationSwitch else { return }
        for event in locationSwitch.receive() {
            switch event {
            case .changed(let value):
                logger.debug("GNOME's location switch: \(value)")
                perform(core.switchRead(value, now: Self.unixNow))
            case .accuracy(let capped):
                logger.debug("GNOME's accuracy \(capped ? "below exact" : "exact")")
                perform(core.accuracyRead(capped: capped, now: Self.unixNow))
            case .ended(let reason):
                logger.warning("\(reason); GNOME's location switch is followed again in 5 s")
                switchDue = .now.advanced(by: .seconds(5))
            }
        }
    }

    /// Carries out the core's actions, and those that what they learn returns.
    private func perform(_ actions: [SettingsSyncCore.Action]) {
        for action in actions { carryOut(action) }
    }

    private func carryOut(_ action: SettingsSyncCore.Action) {
        switch action {
        case .readLocd:
            read = (nil, nil)
            let failure =
                calls.send(AdminMethod.listApps.name, [:], tag: .apps)
                ?? calls.send(AdminMethod.status.name, [:], tag: .status)
            if let failure { readFailed(failure) }
        case .setAuthorization(let app, let setting, let precise):
            var parameters: JSONObject = ["appId": .string(app)]
            if let setting { parameters["setting"] = .string(setting) }
            if let precise { parameters["precise"] = .bool(precise) }
            // H5: an administrator's call naming no user sets the app for every user.
            if administrator { parameters["user"] = .int(Int64(getuid())) }
            if let failure = calls.send(AdminMethod.setAuthorization.name, parameters, tag: .authorization(app)) {
                logger.warning("cannot set \(app) in locd: \(failure)")
                perform(core.locdSet(app, record: nil, now: Self.unixNow))
            }
        case .setServices(let enabled):
            if let failure = calls.send(
                AdminMethod.setLocationServices.name,
                ["enabled": .bool(enabled)],
                tag: .services
            ) {
                logger.warning("cannot turn location services \(enabled ? "on" : "off") in locd: \(failure)")
            }
        case .writeStore(let app, let level, let lastUsed):
            store.write(app: app, level: level, lastUsed: lastUsed)
        case .writeSwitch(let enabled):
            do {
                try locationSwitch?.write(enabled)
            } catch {
                logger.warning("cannot write GNOME's location switch: \(error)")
            }
        case .saveAgreed(let agreed):
            save(agreed)
        case .log(let level, let message):
            switch level {
            case .debug: logger.debug("\(message)")
            case .info: logger.info("\(message)")
            case .warning: logger.warning("\(message)")
            }
        }
    }

    private func readFailed(_ reason: String) {
        logger.info("cannot read the person's apps from locd: \(reason)")
        core.locdReadFailed()
    }

    /// The replies of the calls whose sockets are ready.
    private func readCalls(_ ready: Set<Int32>) {
        for (tag, reply) in calls.receive(ready: ready) {
            switch (tag, reply) {
            case (.apps, .success(let parameters)):
                read.apps = parameters
            case (.status, .success(let parameters)):
                read.status = parameters
            case (.apps, .failure(let failure)), (.status, .failure(let failure)):
                read = (nil, nil)
                readFailed(failure.description)
            case (.authorization(let app), .success(let parameters)):
                let record = WireAuthorization(json: parameters["authorization"]).map(Self.app)
                perform(core.locdSet(app, record: record, now: Self.unixNow))
            case (.authorization(let app), .failure(let failure)):
                logger.info("locd did not take \(app) from the permission store: \(failure)")
                perform(core.locdSet(app, record: nil, now: Self.unixNow))
            case (.services, .success):
                break
            case (.services, .failure(let failure)):
                logger.warning("locd did not take GNOME's location switch: \(failure)")
            }
        }
        if let apps = read.apps, let status = read.status {
            read = (nil, nil)
            administrator = WireDaemonStatus(json: status["status"])?.administrator == true
            perform(core.locdRead(Self.state(apps: apps, status: status), now: Self.unixNow))
        }
    }

    /// What `ListApps` and `Status` say of the person (H4): an ordinary caller is listed its own apps alone, an
    /// administrator every user's, of which those of its own uid are the person's.
    private static func state(apps: JSONObject, status: JSONObject) -> SettingsSyncCore.LocdState {
        var records: [String: SettingsSyncCore.LocdState.App] = [:]
        let status = WireDaemonStatus(json: status["status"])
        let administrator = status?.administrator == true
        for entry in (apps["apps"]?.arrayValue ?? []).compactMap({ WireAppEntry(json: $0) }) {
            guard let user = entry.user, !administrator || user == getuid() else { continue }
            records[entry.appId] = app(entry.authorization)
        }
        let using = status?.appsUsingLocation ?? []
        let own = administrator ? nil : status?.locationServicesEnabledForUser
        return .init(apps: records, using: Set(using), switchOn: own)
    }

    /// The grant of an `Authorization` (N7).
    private static func app(_ authorization: WireAuthorization) -> SettingsSyncCore.LocdState.App {
        let label = authorization.settingsLabel
        return .init(
            grant: DesktopGrant(label: label, fullAccuracy: authorization.accuracy == "fullAccuracy"),
            allowed: label == "whileUsing" || label == "always"
        )
    }

    /// Writes what both sides agreed on, whole, through a file renamed over the old (N10).
    private func save(_ agreed: AgreedSettings) {
        let directory = (agreedPath as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            try Data(agreed.text.utf8).write(to: URL(fileURLWithPath: agreedPath), options: .atomic)
        } catch {
            logger.warning("cannot keep the agreed desktop settings in \(agreedPath): \(error)")
        }
    }
}
