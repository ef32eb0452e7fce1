import Foundation
import LocationCore

#if canImport(Glibc)
import Glibc
#endif

extension DaemonConfiguration {
    /// H9: reads the file `[limits] subordinate-uids` names into ``subordinateIDs``, and the lines it skips, with
    /// why, into ``subordinateIDsSkipped``. A missing file, or none named, delegates nothing.
    package mutating func importSubordinateIDs() {
        subordinateIDs = SubordinateIDs()
        subordinateIDsSkipped = []
        guard let file = limits.subordinateUIDs else { return }
        (subordinateIDs, subordinateIDsSkipped) = Self.subordinateIDs(file: file)
    }

    /// The ranges of the file `file` in `/etc/subuid`'s format, and a line for each one skipped; none when the file
    /// is missing (H9). locd-geoclue reads its `--subordinate-uids` with it.
    package static func subordinateIDs(file: String) -> (SubordinateIDs, [String]) {
        guard let data = FileManager.default.contents(atPath: file) else { return (SubordinateIDs(), []) }
        return subordinateIDs(String(decoding: data, as: UTF8.self), file: file, uid: uid(ofUser:))
    }

    /// The ranges of `text`, lines `NAME:START:COUNT` or `UID:START:COUNT` in `/etc/subuid`'s format, and a line
    /// for each one skipped (empty lines and `#` comments are skipped silently).
    /// - Parameter uid: the uid of a user name, if the system has one.
    static func subordinateIDs(
        _ text: String,
        file: String,
        uid: (String) -> UInt32?
    ) -> (SubordinateIDs, [String]) {
        var ranges: [SubordinateIDs.Range] = []
        var skipped: [String] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let why: String
            if fields.count != 3 {
                why = "expected NAME:START:COUNT, three fields"
            } else if let start = UInt32(fields[1]), let count = UInt32(fields[2]) {
                if count == 0 {
                    why = "a range of 0 uids"
                } else if UInt64(start) + UInt64(count) - 1 > UInt64(UInt32.max - 1) {
                    why = "the range goes past uid 4294967294"
                } else if let owner = UInt32(fields[0]) ?? uid(fields[0]) {
                    ranges.append(SubordinateIDs.Range(start: start, count: count, owner: owner))
                    continue
                } else {
                    why = "no user is named \(fields[0])"
                }
            } else {
                why = "START and COUNT must be integers from 0 to 4294967295"
            }
            skipped.append("\(file):\(index + 1): skipped (\(why)): its uids count as their own (SEMANTICS H9)")
        }
        return (SubordinateIDs(ranges), skipped)
    }

    /// The uid of the user `name`, if the system has one.
    private static func uid(ofUser name: String) -> UInt32? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.pw_uid
    }
}
