/// Every live session, each in a slot of one array, found from its ``SessionID`` without hashing.
///
/// This epoch's sessions are numbered 1, 2, 3…, so an array indexed by number records, for each of the
/// last ``window`` sessions created, its app (by ``AppRuntime/serial``, which a later app never shares, where
/// a forgotten app's handle may be given again, F18) and its slot while it lives: finding a session from a call
/// is an array read, and "this id has ended" (S3) is "created here, no longer live" rather than an entry
/// in a set of ended ids. The array is a ring: a number that leaves it while its session lives moves to
/// the dictionary of sessions restored from an earlier epoch, and one whose session has ended is
/// forgotten, so that memory follows the sessions that live, not those ever created (F9: 8 bytes per
/// session ever created grew without end, 24 MiB after 3 million).
///
/// Slots are handed to apps in runs of ``chunk``, and an app's freed slot goes back to that app, so
/// an app's sessions sit together in memory: re-evaluating every session (the global switch) walks
/// memory in order instead of jumping between apps. A freed slot is reused by the app's next session,
/// so a slot held across the creation of a session must be checked against the id it was taken for
/// (``holds(_:at:)``).
struct SessionTable {
    /// This epoch's record of one session number.
    struct Numbered {
        /// The ``AppRuntime/serial`` of the app it was created for.
        var app: UInt32
        /// The session's slot while it lives, -1 after.
        var slot: Int32
    }

    let epoch: UInt32
    /// Live sessions and vacant slots (``SessionEntry/vacant``). Not optionals: reading a field of an
    /// optional element through an accessor copies the whole entry, and this is read once per session
    /// per re-evaluation.
    private(set) var slots: [SessionEntry] = []
    /// Each app's vacant slots, by app handle; the lowest is taken first.
    private var free: [[Int]] = []
    static let chunk = 16
    /// Session number `n` of this epoch at index `(n - 1) % window`, for the last `window` numbers given.
    private(set) var numbered: [Numbered] = []
    /// The numbers given so far; those up to `forgotten` have left ``numbered``.
    private var lastNumber: UInt64 = 0
    private var forgotten: UInt64 = 0
    /// Sessions of other epochs (restored after a restart), and live ones older than ``numbered``.
    private(set) var others: [SessionID: Int] = [:]
    /// How many session numbers ``numbered`` remembers: 8 bytes each (F9).
    let window: Int
    static let defaultWindow = 1 << 20

    init(epoch: UInt32, window: Int = SessionTable.defaultWindow) {
        self.epoch = epoch
        self.window = max(1, window)
    }

    /// The entry of number `number` of this epoch, if it is still in the ring.
    private func ringIndex(_ id: SessionID) -> Int? {
        guard id.epoch == epoch, id.number > forgotten, id.number <= lastNumber else { return nil }
        return Int((id.number - 1) % UInt64(window))
    }

    private(set) var count = 0

    /// Every live session, in slot order.
    var values: [SessionEntry] { slots.filter(\.isLive) }

    /// Every live session's id, in slot order.
    var keys: [SessionID] { slots.compactMap { $0.isLive ? $0.id : nil } }

    func slot(of id: SessionID) -> Int? {
        if let index = ringIndex(id) {
            let slot = Int(numbered[index].slot)
            if slot >= 0 && slots[slot].id == id { return slot }
        }
        return others.isEmpty ? nil : others[id]
    }

    /// Whether `id` is one of the last ``window`` sessions of this epoch, created for the app of `serial` (live
    /// or not).
    func wasNumbered(_ id: SessionID, forSerial serial: UInt32) -> Bool {
        guard let index = ringIndex(id) else { return false }
        return numbered[index].app == serial
    }

    /// The live session `id`, copied out: for queries and tests, not for the rules' hot paths.
    subscript(id: SessionID) -> SessionEntry? {
        guard let slot = slot(of: id) else { return nil }
        return slots[slot]
    }

    /// The session in a live slot.
    subscript(slot: Int) -> SessionEntry {
        _read { yield slots[slot] }
        _modify { yield &slots[slot] }
    }

    func isLive(_ slot: Int) -> Bool { slots[slot].isLive }

    /// Whether `slot` still holds session `id` (it may have ended, and its slot gone to another).
    func holds(_ id: SessionID, at slot: Int) -> Bool { slots[slot].isLive && slots[slot].id == id }

    /// Room for `count` more sessions restored from another epoch, so that the dictionary that finds them is sized
    /// once rather than doubled and rehashed as 100,000 of them come in.
    mutating func reserveRestored(_ count: Int) {
        others.reserveCapacity(others.count + count)
        slots.reserveCapacity(slots.count + count)
    }

    /// Stores a new session of the app of `serial` and returns its slot.
    mutating func insert(_ session: consuming SessionEntry, serial: UInt32) -> Int {
        let id = session.id
        let app = session.app
        let restored = session.restored
        let slot = vacantSlot(for: app)
        slots[slot] = consume session
        // A restored session keeps to the dictionary even if its id looks like this epoch's next one.
        if !restored && id.epoch == epoch && id.number == lastNumber + 1 {
            let entry = Numbered(app: serial, slot: Int32(truncatingIfNeeded: slot))
            if numbered.count < window {
                numbered.append(entry)
            } else {
                // The oldest number leaves the ring: its session, if it lives, is found through the dictionary.
                forgotten += 1
                let index = Int((id.number - 1) % UInt64(window))
                if numbered[index].slot >= 0 {
                    others[SessionID(epoch: epoch, number: forgotten)] = Int(numbered[index].slot)
                }
                numbered[index] = entry
            }
            lastNumber = id.number
        } else {
            others[id] = slot
        }
        count += 1
        return slot
    }

    /// A vacant slot among the app's, after a new run of them if it has none left.
    private mutating func vacantSlot(for app: Int) -> Int {
        while free.count <= app { free.append([]) }
        if let slot = free[app].popLast() { return slot }
        let start = slots.count
        slots.append(contentsOf: repeatElement(SessionEntry.vacant, count: Self.chunk))
        free[app] = Array((start + 1..<start + Self.chunk).reversed())
        return start
    }

    /// Takes the session out of its slot; `nil` if the slot is vacant.
    mutating func remove(_ slot: Int) -> SessionEntry? {
        guard slots[slot].isLive else { return nil }
        var session = SessionEntry.vacant
        swap(&session, &slots[slot])
        let id = session.id
        if let index = ringIndex(id), numbered[index].slot == Int32(truncatingIfNeeded: slot) {
            numbered[index].slot = -1
        } else {
            others[id] = nil
        }
        free[session.app].append(slot)
        count -= 1
        return session
    }
}
