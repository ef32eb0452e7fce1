/// Every app the core knows, each at a stable integer handle.
///
/// Apps are added and never removed (a reload only drops a manifest), so a handle stays valid for the
/// core's life. An app id is hashed once, where a call or a timer names the app; everything after
/// addresses the app by handle, and reads and writes its ``AppRuntime`` in place in one array instead
/// of copying it out of a dictionary.
struct AppTable {
    private(set) var runtimes: [AppRuntime] = []
    private var handles: [String: Int] = [:]
    /// Handles in app-id order, and each handle's place in it: output spanning apps follows app-id order.
    private(set) var ordered: [Int] = []
    private(set) var rank: [Int] = []

    var count: Int { runtimes.count }

    /// Every app, in handle order.
    var values: [AppRuntime] { runtimes }

    /// Every app id, in handle order.
    var keys: [String] { runtimes.map(\.appID) }

    func handle(_ appID: String) -> Int? { handles[appID] }

    /// The app named `appID`, copied out: for queries and tests, not for the rules' hot paths.
    subscript(appID: String) -> AppRuntime? {
        guard let handle = handles[appID] else { return nil }
        return runtimes[handle]
    }

    subscript(handle: Int) -> AppRuntime {
        // A getter, not `_read`: with `_read { yield runtimes[handle] }` the compiler let a caller copy a field
        // of the yielded value after the accessor's heap-allocated frame was freed (AddressSanitizer under the
        // call-dispatch fuzz target; Fuzz/regressions/call-dispatch/empty-input replays it).
        get { runtimes[handle] }
        _modify { yield &runtimes[handle] }
    }

    /// Adds an app and returns its handle; the caller makes sure `appID` is new.
    mutating func add(_ runtime: AppRuntime) -> Int {
        let handle = runtimes.count
        let appID = runtime.appID
        runtimes.append(runtime)
        handles[appID] = handle
        // Binary search for its place in app-id order; adding is rare (start, Hello of an unknown app, reload).
        var low = 0
        var high = ordered.count
        while low < high {
            let middle = (low + high) / 2
            if runtimes[ordered[middle]].appID < appID { low = middle + 1 } else { high = middle }
        }
        ordered.insert(handle, at: low)
        rank.append(0)
        for position in low..<ordered.count { rank[ordered[position]] = position }
        return handle
    }
}
