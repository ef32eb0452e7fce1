/// A circular geographic condition of a monitor (CLMonitor's `CircularGeographicCondition`).
package struct CircularCondition: Hashable, Codable, Sendable {
    package var latitude: Double
    package var longitude: Double
    /// Metres.
    package var radius: Double

    package init(latitude: Double, longitude: Double, radius: Double) {
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
    }

    /// Why the condition cannot be monitored, or `nil` when it is well formed.
    package var problem: String? {
        guard latitude.isFinite, (-90...90).contains(latitude) else { return "latitude must be in -90…90" }
        guard longitude.isFinite, (-180...180).contains(longitude) else { return "longitude must be in -180…180" }
        guard radius.isFinite, radius > 0 else { return "radius must be a positive number of metres" }
        return nil
    }
}

/// The state a monitor reports for a condition (CLMonitor's `CLMonitoringState`).
package enum ConditionState: String, CaseIterable, Codable, Sendable {
    case unknown
    case satisfied
    case unsatisfied
}

/// One monitor event: a condition's state and the monitor-event diagnostic flags (U4).
package struct MonitorEventView: Hashable, Codable, Sendable {
    package var monitor: String
    package var identifier: String
    package var state: ConditionState
    package var diagnostic: DiagnosticMask
    /// Unix time of the fix that set the state; `nil` while it is `unknown` (the shell then says "now").
    package var date: Double? = nil
}

/// The conditions an app monitors, across its named monitors, in the order they were added (U4).
///
/// Only the first ``limit`` conditions of an app are monitored; the rest report `conditionLimitExceeded`
/// until earlier ones are removed. Each condition keeps the place it was first given (its ``Entry/position``,
/// stored with it), so the same 20 stay monitored across restarts.
struct MonitorConditions {
    /// At most this many conditions per app are monitored (U4: 20).
    static let limit = 20

    struct Entry: Hashable {
        var monitor: String
        var identifier: String
        var condition: CircularCondition
        var state: ConditionState = .unknown
        /// Unix time of the fix that set ``state``.
        var date: Double?
        /// The order conditions were added in, across the app's monitors; smaller is earlier.
        var position: Int64
    }

    private(set) var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    /// Conditions across the app's monitors.
    var count: Int { entries.count }

    /// Adds or replaces a condition; a replaced one keeps its place and starts again as `unknown`.
    ///
    /// - Returns: the index of the condition.
    @discardableResult
    mutating func add(monitor: String, identifier: String, condition: CircularCondition, position: Int64) -> Int {
        if let index = index(monitor: monitor, identifier: identifier) {
            entries[index] = Entry(
                monitor: monitor,
                identifier: identifier,
                condition: condition,
                position: entries[index].position
            )
            return index
        }
        entries.append(Entry(monitor: monitor, identifier: identifier, condition: condition, position: position))
        return entries.count - 1
    }

    /// Puts back a stored condition; the caller restores them in ``Entry/position`` order.
    mutating func restore(_ entry: Entry) {
        entries.append(entry)
    }

    /// Removes a condition; returns whether it was there.
    @discardableResult
    mutating func remove(monitor: String, identifier: String) -> Bool {
        guard let index = index(monitor: monitor, identifier: identifier) else { return false }
        entries.remove(at: index)
        return true
    }

    func index(monitor: String, identifier: String) -> Int? {
        entries.firstIndex { $0.monitor == monitor && $0.identifier == identifier }
    }

    subscript(index: Int) -> Entry { entries[index] }

    /// A condition's name: its monitor and identifier.
    struct Key: Hashable {
        var monitor: String
        var identifier: String
    }

    /// The conditions past the app's limit.
    var overLimit: [Key] {
        entries.dropFirst(Self.limit).map { Key(monitor: $0.monitor, identifier: $0.identifier) }
    }

    /// The conditions of one monitor, each with whether it is past the app's limit.
    func conditions(of monitor: String) -> [(entry: Entry, overLimit: Bool)] {
        entries.enumerated().compactMap { index, entry in
            entry.monitor == monitor ? (entry, index >= Self.limit) : nil
        }
    }

    /// Evaluates the condition at `index` against `fix` unless it is past the limit or unsupported;
    /// returns whether its state changed.
    @discardableResult
    mutating func evaluate(_ index: Int, against fix: Fix) -> Bool {
        guard index < Self.limit, entries[index].condition.isSupported else { return false }
        let state = entries[index].condition.state(after: fix, from: entries[index].state)
        guard state != entries[index].state else { return false }
        entries[index].state = state
        entries[index].date = fix.timestamp
        return true
    }

    /// Evaluates every monitored condition against `fix`; returns the indices whose state changed.
    mutating func evaluate(against fix: Fix) -> [Int] {
        var changed: [Int] = []
        for index in entries.indices.prefix(Self.limit) where evaluate(index, against: fix) { changed.append(index) }
        return changed
    }
}
