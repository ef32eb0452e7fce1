/// What locd-agent does to keep its person's decisions in locd, the desktop's permission store and GNOME's location
/// switch as one (SEMANTICS N7–N13), decided from what each side says. Deterministic: it never touches the bus, the
/// socket, a file or a clock; each event returns the ``Action``s for the shell, and what the shell learns doing them
/// comes back as events.
struct SettingsSyncCore {
    enum Action: Equatable, Sendable {
        /// Read the person's apps (`ListApps` of the agent's uid) and `Status`; the answer is
        /// ``SettingsSyncCore/locdRead(_:)``.
        case readLocd
        /// `SetAuthorization` of the person's app `app`: `setting` (`nil`: keep the app's While Using or Always) and
        /// `precise`; the reply is ``SettingsSyncCore/locdSet(_:record:)``.
        case setAuthorization(app: String, setting: String?, precise: Bool?)
        /// `SetLocationServices(enabled)` as the person (H6).
        case setServices(Bool)
        /// Write the store's entry of `app`: `[level, lastUsed]`, or, with `level` `nil`, remove it.
        case writeStore(app: String, level: String?, lastUsed: String)
        /// Write GNOME's `enabled`.
        case writeSwitch(Bool)
        /// Keep what both sides agree on (N10).
        case saveAgreed(AgreedSettings)
        case log(AgentCore.LogLevel, String)
    }

    /// What locd says of the person: their apps' records, the apps using location, and their own switch (`nil` for
    /// an administrator, whose `SetLocationServices` is the machine's).
    struct LocdState: Equatable, Sendable {
        struct App: Equatable, Sendable {
            var grant: DesktopGrant
            /// While Using or Always: a grant from the store keeps which (N7).
            var allowed: Bool
        }
        var apps: [String: App]
        var using: Set<String>
        var switchOn: Bool?
    }

    /// The name locd gives the desktop portal's own app (G21, N11).
    static let portalApp = "xdg-desktop-portal"
    /// How often an app that goes on using location has its LAST_USED written by default (N9).
    static let defaultLastUsedInterval = 60.0
    /// How long after a grant in the store the portal's app, first seen undecided, takes it (N11).
    static let portalWindow = 10.0

    var agreed: AgreedSettings
    var locd: LocdState?
    /// The store's entries, `nil` until it was read (or while there is none).
    var store: [String: [String]]?
    var switchValue: DesktopSwitch?
    /// Reads of locd: one at a time, one more when something happened meanwhile (as N5's).
    private var reading = false
    private var readAgain = false
    private var readsSent = 0
    /// Per app, the last read whose answer may be older than a `SetAuthorization` sent for it: its record in those
    /// reads is skipped, so that a read that crossed a change is not taken for the person's newest (N9).
    private var staleUpTo: [String: Int] = [:]
    var settingNow: Set<String> = []
    var lastUseWritten: [String: Double] = [:]
    var saidAdministrator = false
    /// The last grant the person gave in the store, and when, for the portal's app (N11).
    var portalGrant: (DesktopGrant, Double)?
    /// Whether GNOME's `max-accuracy-level` is below exact (N14); `nil` until it is read.
    var capped: Bool?

    /// How often an app that goes on using location has its LAST_USED written (N9), in seconds.
    let lastUsedInterval: Double

    init(agreed: AgreedSettings, lastUsedInterval: Double = defaultLastUsedInterval) {
        self.agreed = agreed
        self.lastUsedInterval = lastUsedInterval
    }

    /// The agent starts: read locd.
    mutating func start() -> [Action] { requestRead() }

    /// locd said something happened to the person's apps or switch.
    mutating func locdChanged() -> [Action] { requestRead() }

    private mutating func requestRead() -> [Action] {
        if reading {
            readAgain = true
            return []
        }
        reading = true
        readsSent += 1
        return [.readLocd]
    }

    /// A read of locd failed: the next event reads again.
    mutating func locdReadFailed() { reading = false }

    /// A read of locd answered, at Unix time `now`.
    mutating func locdRead(_ state: LocdState, now: Double) -> [Action] {
        let read = readsSent
        reading = false
        var actions: [Action] = readAgain ? requestRead() : []
        readAgain = false
        var next = state
        // A record read before a change locd was asked for answered may be older than it: the one kept stands.
        for app in Set(next.apps.keys).union(locd?.apps.keys ?? [:].keys) where skipped(app, read: read) {
            next.apps[app] = locd?.apps[app]
        }
        let previous = locd
        locd = next
        let changed =
            previous == nil
            ? everyApp
            : Set(next.apps.keys).union(previous?.apps.keys ?? [:].keys).filter { previous?.apps[$0] != next.apps[$0] }
        actions += reconcile(changed, now: now)
        actions += reconcileSwitch(now: now, locdMoved: previous?.switchOn != next.switchOn)
        actions += lastUse(previous: previous?.using ?? [], now: now)
        actions += portalAnswered(now: now)
        actions += accuracyHeld()
        return actions
    }

    private func skipped(_ app: String, read: Int) -> Bool {
        settingNow.contains(app) || (staleUpTo[app].map { read <= $0 } ?? false)
    }

    /// locd answered a `SetAuthorization` of `app` with the record it now holds (`nil`: refused, or it broke).
    mutating func locdSet(_ app: String, record: LocdState.App?, now: Double) -> [Action] {
        settingNow.remove(app)
        staleUpTo[app] = readsSent
        guard let record else { return [] }
        locd?.apps[app] = record
        // N9: what locd holds after the copy is what holds (a ceiling, a restriction), and the store shows it.
        return reconcile([app], now: now, forced: .locd)
    }

    /// The store was read whole, or changed (`Changed`): its entries now. `nil`: there is no store.
    mutating func storeRead(_ entries: [String: [String]]?, now: Double) -> [Action] {
        let previous = store
        store = entries
        guard let entries else { return [] }
        let moved = Set(entries.keys).union(previous?.keys ?? [:].keys).filter { app in
            grant(inStore: previous?[app]) != grant(inStore: entries[app])
        }
        return reconcile(previous == nil ? everyApp : moved, now: now)
    }

    /// GNOME's switch was read, or changed.
    mutating func switchRead(_ value: DesktopSwitch, now: Double) -> [Action] {
        let moved = switchValue != value
        switchValue = value
        return moved ? reconcileSwitch(now: now, locdMoved: false) : []
    }

    /// Every app either side knows.
    private var everyApp: Set<String> { Set(locd?.apps.keys ?? [:].keys).union(store?.keys ?? [:].keys) }

    /// Time for the LAST_USED of the apps still using location (N9).
    mutating func lastUseDue(now: Double) -> [Action] {
        lastUse(previous: locd?.using ?? [], now: now)
    }
}
