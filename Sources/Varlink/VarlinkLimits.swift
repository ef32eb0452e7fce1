import NIOCore

/// The limits of PROTOCOL.md "Limits and bad input".
public struct VarlinkLimits: Sendable, Hashable {
    /// Connections open at once for peers that are not privileged (`max-connections`, F10).
    public var maximumConnections: Int
    /// Connections one peer uid may hold unless it is privileged (`max-connections-per-uid`, F11).
    public var maximumConnectionsPerUID: Int
    /// Connections beyond ``maximumConnections`` that only privileged peers may use (`admin-reserve`, F12).
    public var adminReserve: Int
    /// How long a connection may stay open without sending a call (`idle-timeout`, F13).
    public var idleTimeout: TimeAmount
    public var maximumMessageBytes: Int
    public var maximumWriteBuffer: Int
    /// How many unwritten ``StreamBacklog/dropOldest`` replies a lagging connection keeps (`max-queued-updates`).
    public var maximumQueuedReplies: Int
    /// How many calls read from one connection may wait for their turn before it stops reading
    /// (`max-pipelined-calls`, F4).
    public var maximumPipelinedCalls: Int

    public init(
        maximumConnections: Int = 4096,
        maximumConnectionsPerUID: Int = 256,
        adminReserve: Int = 16,
        idleTimeout: TimeAmount = .seconds(10),
        maximumMessageBytes: Int = 1 << 20,
        maximumWriteBuffer: Int = 4 << 20,
        maximumQueuedReplies: Int = 64,
        maximumPipelinedCalls: Int = 64
    ) {
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerUID = maximumConnectionsPerUID
        self.adminReserve = adminReserve
        self.idleTimeout = idleTimeout
        self.maximumMessageBytes = maximumMessageBytes
        self.maximumWriteBuffer = maximumWriteBuffer
        self.maximumQueuedReplies = maximumQueuedReplies
        self.maximumPipelinedCalls = maximumPipelinedCalls
    }

    /// Unwritten bytes past which a connection counts as lagging and its stream replies are held back:
    /// 64 KiB (far beyond what a reading client leaves unwritten), or half of `max-write-buffer` if smaller.
    var lagThreshold: Int { max(1, min(65_536, maximumWriteBuffer / 2)) }
}
