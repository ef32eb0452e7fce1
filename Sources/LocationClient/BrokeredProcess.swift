#if canImport(Glibc)
import Glibc
#endif

/// The process a broker's client speaks for, with the client's own duplicate of its pidfd: every `Hello` of the
/// client (its control connection, each stream's, and each again after a reconnection) passes it, and it is closed
/// when the last of them is done with it.
final class BrokeredProcess: Sendable {
    let pid: Int32
    /// The client's duplicate of the caller's pidfd, close-on-exec.
    let descriptor: Int32
    /// The app's own words for a prompt, when locd has no manifest for it (SEMANTICS I11).
    let description: String?

    /// - Throws: ``LocationClientError/invalidParameter(parameter:message:)`` when the pidfd cannot be duplicated
    ///   (it is not an open descriptor).
    init(_ reference: ProcessReference, description: String?) throws {
        let copy = fcntl(reference.pidfd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else {
            throw LocationClientError.invalidParameter(
                parameter: "pidfd",
                message: "cannot duplicate pidfd \(reference.pidfd): \(String(cString: strerror(errno))); "
                    + "pass an open pidfd of process \(reference.pid)"
            )
        }
        pid = reference.pid
        descriptor = copy
        self.description = description
    }

    deinit { close(descriptor) }
}
