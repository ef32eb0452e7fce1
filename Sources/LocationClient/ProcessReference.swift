/// A process that a broker speaks for: its pid, as locd sees it (locd's pid namespace), and a pidfd of it that
/// proves the pid still names that process (SEMANTICS I8, I9).
///
/// Take the pid from a source that vouches for it (the bus's credentials of a peer that is still connected) and
/// open the pidfd at once, before the process could have exited and left its pid to another.
public struct ProcessReference: Sendable, Hashable {
    /// The process's pid.
    public var pid: Int32
    /// A pidfd of the process (`pidfd_open`). The caller keeps it: a client made with it holds a duplicate.
    public var pidfd: Int32

    public init(pid: Int32, pidfd: Int32) {
        self.pid = pid
        self.pidfd = pidfd
    }
}
