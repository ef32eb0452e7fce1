/// A peer that called `AddAgent` (GNOME Shell, the GeoClue demo agent): the prompt agent of its uid's GeoClue apps
/// (SEMANTICS G11). Used on the bus thread only.
final class GeoClueAgent {
    /// Its unique bus name, where `/org/freedesktop/GeoClue2/Agent` is asked.
    let name: String
    /// The id it gave `AddAgent` (its desktop id), for the log.
    var id: String
    let uid: UInt32
    /// Its `MaxAccuracyLevel`; `nil` until its `GetAll` answered, and it is asked nothing before.
    var maxAccuracy: UInt32?
    /// The order of registration: the latest ready agent of a uid is the one asked.
    let serial: UInt64
    /// Prompts it is being asked, by the cookie of the `AuthorizeApp` call.
    var asking: [UInt64: String] = [:]
    /// The `AddAgent` call, answered once its `GetAll` has.
    var pendingAdd: BusMessage?
    /// The registrations of its calls and of its `PropertiesChanged` match; unref'd when it goes.
    var slots: [OpaquePointer] = []

    /// The `AddAgent` id of GeoClue's demo agent, which is never asked a prompt (G11): it shows no dialog of its own,
    /// and answers not authorized when it cannot reach a notification server, a deny nobody gave.
    static let demoAgentID = "geoclue-demo-agent"

    /// Whether it may be asked locd's prompts (G11).
    var showsPrompts: Bool { id != Self.demoAgentID }

    init(name: String, id: String, uid: UInt32, serial: UInt64) {
        self.name = name
        self.id = id
        self.uid = uid
        self.serial = serial
    }
}

/// A prompt locd sent that a GeoClue agent may answer, and where asking it stands.
struct PendingPrompt {
    let prompt: AgentPrompt
    /// The uid it counts against (``GeoClueLimits/promptsPerUID``): its user, whose client starts its app (the
    /// user a subordinate uid is delegated to, H9), or `UInt32.max` for a prompt no GeoClue client of its user was
    /// starting for when it came.
    let uid: UInt32
    /// The agent being asked and the cookie of its `AuthorizeApp` call.
    var askedOf: (agent: String, cookie: UInt64)?
    /// Agents that failed to answer (left, or answered an error): not asked again.
    var failed: Set<String> = []
}
