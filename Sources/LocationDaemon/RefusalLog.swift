/// SEMANTICS I6: which refusals are written to the log in full, and how many others each summary counts.
///
/// The first refusal of a uid for a method is logged in full and opens a window of ``window``; the refusals
/// of that uid for that method within the window are only counted, and when it closes one summary line gives
/// their number. A flood of refused calls costs two log lines per window, and the audit keeps every refusal.
/// `Hello` is counted per app as well (manifests bound the apps), so each misconfigured app shows in the log.
struct RefusalLog {
    struct Key: Hashable {
        var uid: UInt32
        var method: String
        /// The app of a refused `Hello`, else empty.
        var app: String
        /// The limit a call was refused at (`max-apps-per-uid`, F20), empty for a `PermissionDenied`.
        var limit = ""
    }

    /// How long the refusals after a logged one are counted before their summary.
    static let window: Int64 = 10
    /// Windows open at once; past them a refusal is logged in full (a bound that real uids never reach).
    static let maximumWindows = 1024

    /// The refusals counted in each open window.
    private var counted: [Key: Int] = [:]

    /// Records a refusal; `true` when it is to be logged in full. `opened` says whether a window was opened,
    /// whose ``close(_:)`` the caller must schedule.
    mutating func record(_ key: Key) -> (log: Bool, opened: Bool) {
        if let count = counted[key] {
            counted[key] = count + 1
            return (false, false)
        }
        guard counted.count < Self.maximumWindows else { return (true, false) }
        counted[key] = 0
        return (true, true)
    }

    /// Closes a window; returns how many refusals it counted.
    mutating func close(_ key: Key) -> Int {
        counted.removeValue(forKey: key) ?? 0
    }

    /// Closes every window (locd is stopping); returns those that counted refusals.
    mutating func closeAll() -> [(key: Key, count: Int)] {
        let open = counted.filter { $0.value > 0 }.map { (key: $0.key, count: $0.value) }
        counted.removeAll()
        return open
    }
}
