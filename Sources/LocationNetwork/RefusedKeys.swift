/// The urls whose API key the service refused (SEMANTICS U21), shared by every schedule: nothing more is asked of
/// them until `locd-network` restarts. Loop-bound: used on the server's event loop only.
final class RefusedKeys {
    /// The most urls remembered: locd names a handful; past it the oldest is forgotten.
    static let capacity = 64
    private var refused: [(url: String, reason: String)] = []

    /// Why `url` is not asked, if its key was refused.
    func reason(for url: String) -> String? {
        refused.first { $0.url == url }?.reason
    }

    /// Remembers that the key of `url` was refused; whether this is news (so that it is logged once).
    func refuse(_ url: String, reason: String) -> Bool {
        guard self.reason(for: url) == nil else { return false }
        refused.append((url, reason))
        if refused.count > Self.capacity { refused.removeFirst() }
        return true
    }
}
