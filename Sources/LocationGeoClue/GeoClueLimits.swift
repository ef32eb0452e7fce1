import SubordinateRanges

/// The bounds that keep one peer from taking locd-geoclue's memory: each is answered with
/// `org.freedesktop.DBus.Error.LimitsExceeded` when reached.
struct GeoClueLimits: Sendable {
    /// The ranges of subordinate uids: each per-uid bound counts a delegated uid against its user (SEMANTICS H9).
    var subordinateIDs = SubordinateIDs()
    /// Client objects in all.
    var clients = 4096
    /// Client objects of one uid's peers: one user's programs cannot take every client from the others'.
    var clientsPerUID = 256
    /// Client objects of one peer.
    var clientsPerPeer = 64
    /// App ids (`DesktopId`s) one peer speaks to locd for at once: each is a locd connection, which locd counts
    /// against the `max-connections-per-uid` of the peer's uid (SEMANTICS I8, F11).
    var appsPerPeer = 4
    /// How long a peer's locd connection for an app id stays open once none of its clients speaks through it: the
    /// peer's next client of that app (a program that creates a client for each lookup) needs no new connection.
    var idleAppSeconds = 5.0
    /// `Start` calls of one client waiting for locd's decision.
    var pendingStarts = 8
    /// How long a `Start` waits for locd's decision before it is answered all the same (G17): below the D-Bus
    /// default method-call timeout (25 s) of libgeoclue, gammastep and where-am-i, so they hear locd's words.
    var startSeconds = 20.0
    /// Runs of one client not yet wound down (a peer that alternates Start and Stop faster than locd answers).
    var unfinishedRuns = 8
    /// Replaced Location objects of one client kept for late readers; past it the oldest goes before its 5 s.
    var retiredLocations = 16
    /// How long a replaced Location object stays readable.
    var retiredLocationSeconds = 5.0
    /// GeoClue agents in all, and of one uid (the latest registered of a uid is the one asked).
    var agents = 64
    var agentsPerUID = 4
    /// Authorization prompts kept for GeoClue agents, in all and of one uid (the uid of a client starting the
    /// prompt's app); past either a prompt is left to locd's other agents.
    var prompts = 256
    var promptsPerUID = 16
    /// `AuthorizeApp` calls one agent is asked at once; the next prompts wait for one of them to end.
    var promptsPerAgent = 16
    /// The bound of one `AuthorizeApp` call. locd's withdrawal of the prompt (answered elsewhere, or its
    /// `prompt-timeout`, P8) cancels the call first; this only bounds a call locd never withdraws.
    var authorizeSeconds = 3600.0
    /// Unique names whose appearance on the bus is remembered while they are connected (SEMANTICS I14): the
    /// system bus itself allows 2,048 connections; past this a name is judged by the last one left unrecorded.
    var appearedNames = 65_536
}
