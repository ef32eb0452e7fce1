import Foundation
import LocationConfiguration
import SubordinateRanges

extension DaemonConfiguration {
    /// ``load(path:defaultPath:accounts:readSubordinateIDs:)`` as the tests call it, reading no file of the host's:
    /// a subordinate-uid file outside the temporary directory (the default `/etc/subuid`, which Debian's `useradd`
    /// fills) reads as empty, a file a test wrote is read, and the system lists no account (SEMANTICS H9).
    static func loadOwn(
        path: String? = nil,
        defaultPath: String = DaemonConfiguration.defaultPath,
        accounts: [(name: String, uid: UInt32)] = []
    ) throws(ConfigurationIssue) -> DaemonConfiguration {
        let own: (String) -> (SubordinateIDs, [String]) = { file in
            file.hasPrefix(NSTemporaryDirectory()) ? SubordinateIDs.read(file: file) : (SubordinateIDs(), [])
        }
        return try load(path: path, defaultPath: defaultPath, accounts: { accounts }, readSubordinateIDs: own)
    }
}
