import BusVTable
import CSdBus
import Logging
import ProcessIdentity
import SubordinateRanges

#if canImport(Glibc)
import Glibc
#endif

/// `org.freedesktop.GeoClue2` served from locd: the Manager, Client and Location objects, their owners, and the
/// bridge from each `Start` to a locd session.
///
/// Everything here runs on the bus thread (``BusConnection``), the clients' connections to locd too (``ClientRun``);
/// only the prompt stream's task (``PromptLink``) comes back to it with `perform`.
final class GeoClueService: @unchecked Sendable {
    // @unchecked: every stored property is used on the bus thread only.
    static let busName = "org.freedesktop.GeoClue2"
    static let managerPath = "/org/freedesktop/GeoClue2/Manager"
    static let clientPrefix = "/org/freedesktop/GeoClue2/Client/"
    static let locationPrefix = "/org/freedesktop/GeoClue2/Location/"
    static let managerInterface = "org.freedesktop.GeoClue2.Manager"
    static let clientInterface = "org.freedesktop.GeoClue2.Client"
    static let locationInterface = "org.freedesktop.GeoClue2.Location"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    let connection: BusConnection
    let socketPath: String?
    /// The bounds; its subordinate ranges learn which of their uids have accounts of their own (H9).
    var limits: GeoClueLimits
    /// The uids of subordinate ranges asked of the system for an account of their own (H9).
    var accountLookup = AccountLookup()
    let logger: Logger
    var clients: [String: GeoClueClient] = [:]
    var locations: [String: GeoClueLocation] = [:]
    var peers: [String: GeoCluePeer] = [:]
    /// Agents that called `AddAgent`, by bus name: locd's prompts of their uid's GeoClue apps are asked of them.
    var agents: [String: GeoClueAgent] = [:]
    var nextAgentSerial: UInt64 = 0
    /// GeoClue's `[agent] whitelist`, when its configuration writes one (G34): only these ids may be agents.
    var agentWhitelist: AgentWhitelist?
    /// Calls to agents waiting for their replies, by cookie.
    var agentCalls: [UInt64: PendingAgentCall] = [:]
    /// Authorization prompts locd sent that an agent may answer, by prompt id, and how many count against each uid.
    var prompts: [String: PendingPrompt] = [:]
    var promptsByUID: [UInt32: Int] = [:]
    /// The prompts an agent answered, the latest ``GeoClueLimits/prompts`` of them: a stream that sends one again
    /// before locd has the answer does not have it asked twice.
    var answeredPrompts: [String] = []
    /// When each unique name was seen to appear on the bus, in ticks since boot, while it is on the bus (I14): by
    /// then its peer had connected, so a process that started later is not the one that did.
    var appearedAt: [String: UInt64] = [:]
    /// The instant by which every peer without an entry in ``appearedAt`` had connected: when locd-geoclue began to
    /// watch names appear, or later, when a name went unrecorded because ``appearedAt`` was full.
    var unrecordedBy: UInt64 = 0
    /// The uid of each peer that was asked for it, while it is on the bus.
    var uids: [String: UInt32] = [:]
    /// Client objects per uid of their owners, counted as ``counted(_:)`` says (G8).
    var clientsByUID: [UInt32: Int] = [:]
    /// The Prompts stream, open while an agent is registered; made at the first.
    var prompting: PromptLink?
    var inUse = false
    private var nextClient: UInt32 = 0
    private var nextLocation: UInt64 = 0
    private var slots: [OpaquePointer] = []
    private let managerTable = VTable(GeoClueService.managerMembers)
    let clientTable = VTable(GeoClueService.clientMembers)
    let locationTable = VTable(GeoClueService.locationMembers)

    init(connection: BusConnection, socketPath: String?, limits: GeoClueLimits, logger: Logger) {
        self.connection = connection
        self.socketPath = socketPath
        self.limits = limits
        self.logger = logger
    }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
        for agent in agents.values {
            agent.pendingAdd?.release()
            for slot in agent.slots { sd_bus_slot_unref(slot) }
        }
        for call in agentCalls.values { if let slot = call.slot { sd_bus_slot_unref(slot) } }
        prompting?.close()
    }

    var bus: OpaquePointer { connection.bus }
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Exports the Manager, watches peers leave, and takes the bus name; on the bus thread, before it runs.
    func register() throws(BusFailure) {
        var slot: OpaquePointer?
        var result = sd_bus_add_object_vtable(
            bus,
            &slot,
            Self.managerPath,
            Self.managerInterface,
            managerTable.entries,
            userdata
        )
        if result < 0 { throw BusFailure(doing: "export \(Self.managerPath)", code: result) }
        slots += [slot].compactMap { $0 }
        result = sd_bus_add_filter(bus, &slot, Self.filterCallback, userdata)
        if result < 0 { throw BusFailure(doing: "add a message filter", code: result) }
        slots += [slot].compactMap { $0 }
        result = csdbus_match_name_owner_changed(bus, &slot, Self.nameOwnerChangedCallback, userdata)
        if result < 0 { throw BusFailure(doing: "watch NameOwnerChanged", code: result) }
        slots += [slot].compactMap { $0 }
        // The match is in place (sd_bus_add_match waits for the bus's answer): every peer that connects from now on
        // is seen appearing, and every other one had connected by now (I14).
        unrecordedBy = ProcessFacts.ticksSinceBoot()
        result = sd_bus_request_name(bus, Self.busName, 0)
        if result < 0 {
            throw BusFailure(
                doing: "own \(Self.busName) (is GeoClue running? stop it with `systemctl stop geoclue`)",
                code: result
            )
        }
    }

    /// Emits `PropertiesChanged` for `names` of `interface` at `path`, with their values now.
    func emitChanged(_ path: String, _ interface: String, _ names: [String]) {
        var pointers = names.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        let result = sd_bus_emit_properties_changed_strv(bus, path, interface, &pointers)
        if result < 0 {
            logger.warning("cannot emit PropertiesChanged on \(path): \(BusFailure(doing: "", code: result))")
        }
    }

    /// Recomputes the Manager's `InUse`: true while any client is active.
    func updateInUse() {
        let now = clients.values.contains { $0.active }
        guard now != inUse else { return }
        inUse = now
        emitChanged(Self.managerPath, Self.managerInterface, ["InUse"])
    }

    /// A new Client object of `owner`, exported; `nil` when sd-bus refused to export it.
    func makeClient(owner: String, uid: UInt32) -> GeoClueClient? {
        nextClient += 1
        let client = GeoClueClient(path: Self.clientPrefix + String(nextClient), owner: owner, ownerUID: uid)
        var slot: OpaquePointer?
        let result = sd_bus_add_object_vtable(
            bus,
            &slot,
            client.path,
            Self.clientInterface,
            clientTable.entries,
            userdata
        )
        guard result >= 0 else {
            logger.error("cannot export \(client.path): \(BusFailure(doing: "export", code: result))")
            return nil
        }
        client.slot = slot
        clients[client.path] = client
        clientsByUID[counted(uid), default: 0] += 1
        peer(owner).clients.append(client.path)
        return client
    }

    /// The uid `uid` counts as against the per-uid bounds: the user a subordinate range delegates it to, else
    /// itself (SEMANTICS H9); a uid in a range is asked of the system once whether it has an account of its own,
    /// and then counts as itself. `UInt32.max`, the shared count of peers the bus names no uid for, stays itself.
    func counted(_ uid: UInt32) -> UInt32 {
        guard uid != UInt32.max else { return uid }
        let (counted, found) = accountLookup.counted(uid, in: limits.subordinateIDs)
        if let found {
            limits.subordinateIDs.addAccount(uid)
            logger.warning("\(limits.subordinateIDs.overlap(uid: uid, name: nil, found))")
        }
        return counted
    }

    /// `uid` as a refusal names it: with the user it counts as, when that is another (H9).
    func countedName(_ uid: UInt32) -> String {
        let user = counted(uid)
        guard user != uid else { return "uid \(uid)" }
        return "uid \(uid) (counted as uid \(user), to whom a subordinate range delegates it)"
    }

    /// A new Location object of `client`'s owner for `fix`, exported; `nil` when sd-bus refused to export it.
    func makeLocation(_ fix: GeoClueFix, of client: GeoClueClient) -> GeoClueLocation? {
        nextLocation += 1
        let path = Self.locationPrefix + String(nextLocation)
        var slot: OpaquePointer?
        let result = sd_bus_add_object_vtable(
            bus,
            &slot,
            path,
            Self.locationInterface,
            locationTable.entries,
            userdata
        )
        guard result >= 0 else {
            logger.error("cannot export \(path): \(BusFailure(doing: "export", code: result))")
            return nil
        }
        let location = GeoClueLocation(path: path, owner: client.owner, fix: fix, slot: slot)
        locations[path] = location
        return location
    }

    /// Unexports a Location object now.
    func dropLocation(_ path: String) {
        guard let location = locations.removeValue(forKey: path) else { return }
        if let slot = location.slot { sd_bus_slot_unref(slot) }
    }

    /// Keeps a replaced Location object readable for a while (clients GetAll it after the signal), within bounds.
    func retire(_ path: String, of client: GeoClueClient?) {
        if let client {
            client.retired.append(path)
            while client.retired.count > limits.retiredLocations { dropLocation(client.retired.removeFirst()) }
        }
        connection.after(limits.retiredLocationSeconds) { [weak client] in
            client?.retired.removeAll { $0 == path }
            self.dropLocation(path)
        }
    }

    func peer(_ name: String) -> GeoCluePeer {
        if let peer = peers[name] { return peer }
        let peer = GeoCluePeer(name: name)
        peers[name] = peer
        return peer
    }
}

extension [UInt32: Int] {
    /// Takes one from the count of `uid`, forgetting a count that reaches zero.
    mutating func uncount(_ uid: UInt32) {
        let left = self[uid, default: 1] - 1
        self[uid] = left > 0 ? left : nil
    }
}
