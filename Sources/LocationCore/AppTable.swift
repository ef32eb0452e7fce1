/// Every app the core knows, each at a stable integer handle.
///
/// An app keeps its handle while the core holds it. Only an app with nothing left to keep is
/// forgotten (SEMANTICS F18), and nothing names its handle by then but lazily dropped deadlines, which
/// check their owner's own field; a later app may take the handle. An app id is hashed once, where a
/// call or a timer names the app; everything after addresses the app by handle, and reads and writes
/// its ``AppRuntime`` in place in one array instead of copying it out of a dictionary.
struct AppTable {
    private(set) var runtimes: [AppRuntime] = []
    private var handles: [AppKey: Int] = [:]
    /// Handles in key order (``AppKey``), and each handle's place in it: output spanning apps follows app-id order.
    private(set) var ordered: [Int] = []
    private(set) var rank: [Int] = []
    /// Handles of forgotten apps, for the next apps added.
    private var vacant: [Int] = []
    /// The ``AppRuntime/serial`` of the next app added.
    private var nextSerial: UInt32 = 1

    /// How many apps the table holds.
    var count: Int { ordered.count }

    /// Every app, in key order.
    var values: [AppRuntime] { ordered.map { runtimes[$0] } }

    func handle(_ key: AppKey) -> Int? { handles[key] }

    /// The handle of the first app of id `appID` in key order (its entry of no user, if it has one), if any.
    func firstHandle(of appID: String) -> Int? {
        if let handle = handles[AppKey.noUser(appID)] { return handle }
        var low = 0
        var high = ordered.count
        while low < high {
            let middle = (low + high) / 2
            if runtimes[ordered[middle]].appID < appID { low = middle + 1 } else { high = middle }
        }
        guard low < ordered.count, runtimes[ordered[low]].appID == appID else { return nil }
        return ordered[low]
    }

    /// The app `key` names, copied out: for queries and tests, not for the rules' hot paths.
    subscript(key: AppKey) -> AppRuntime? {
        guard let handle = handles[key] else { return nil }
        return runtimes[handle]
    }

    /// The app of no user named `appID` (H2), copied out.
    subscript(appID: String) -> AppRuntime? { self[AppKey.noUser(appID)] }

    subscript(handle: Int) -> AppRuntime {
        // A getter, not `_read`: with `_read { yield runtimes[handle] }` the compiler let a caller copy a field
        // of the yielded value after the accessor's heap-allocated frame was freed (AddressSanitizer under the
        // call-dispatch fuzz target; Fuzz/regressions/call-dispatch/empty-input replays it).
        get { runtimes[handle] }
        _modify { yield &runtimes[handle] }
    }

    /// Adds an app and returns its handle; the caller makes sure its key is new.
    mutating func add(_ runtime: consuming AppRuntime) -> Int {
        runtime.serial = nextSerial
        nextSerial &+= 1
        let key = runtime.key
        let handle: Int
        if let reused = vacant.popLast() {
            handle = reused
            runtimes[handle] = runtime
        } else {
            handle = runtimes.count
            runtimes.append(runtime)
            rank.append(0)
        }
        handles[key] = handle
        // Binary search for its place in app-id order; adding is rare (start, reload, Hello of an app not held).
        var low = 0
        var high = ordered.count
        while low < high {
            let middle = (low + high) / 2
            if runtimes[ordered[middle]].key < key { low = middle + 1 } else { high = middle }
        }
        ordered.insert(handle, at: low)
        for position in low..<ordered.count { rank[ordered[position]] = position }
        return handle
    }

    /// Forgets an app (F18): its id is free to name a new app, and its handle to be given again. The caller
    /// makes sure nothing names the handle any more.
    mutating func forget(_ handle: Int) {
        handles.removeValue(forKey: runtimes[handle].key)
        let position = rank[handle]
        ordered.remove(at: position)
        for later in position..<ordered.count { rank[ordered[later]] = later }
        // The id, manifest and lists are let go now, not when the handle is taken again.
        runtimes[handle] = AppRuntime(appID: "", user: nil, manifest: nil)
        vacant.append(handle)
    }
}
