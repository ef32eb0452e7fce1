#if canImport(Glibc)
import Glibc
#endif

extension SubordinateIDs {
    /// The largest file read: a million lines of `/etc/subuid` take about 25 MB.
    package static let maximumFileSize = 256 << 20

    /// The ranges of the file `file` in `/etc/subuid`'s format, and a line for each one skipped; none when the file
    /// is missing (H9). locd reads `[limits] subordinate-uids` with it, locd-geoclue its `--subordinate-uids`.
    package static func read(file: String) -> (SubordinateIDs, [String]) {
        guard let bytes = contents(of: file) else { return (SubordinateIDs(), []) }
        var names = UserNames()
        var reading = parse(bytes, file: file) { names.uid(of: $0) }
        if bytes.count >= maximumFileSize {
            reading.1.append("\(file): read only up to its first \(maximumFileSize) bytes (SEMANTICS H9)")
        }
        return reading
    }

    /// The ranges of `bytes`, lines `NAME:START:COUNT` or `UID:START:COUNT` in `/etc/subuid`'s format split at each
    /// line feed (0x0A), and a line for each one skipped (empty lines and `#` comments are skipped silently).
    /// Blanks around a line are left out; a line that ends in a carriage return (a CR LF line end) is skipped, as
    /// `newuidmap` skips it (H9).
    /// - Parameter uid: the uid of a user name, if the system has one.
    package static func parse(
        _ bytes: [UInt8],
        file: String,
        uid: (String) -> UInt32?
    ) -> (SubordinateIDs, [String]) {
        var ranges: [Range] = []
        var skipped: [String] = []
        var lineNumber = 0
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                lineNumber += 1
                var end = start
                while end < buffer.count, buffer[end] != 0x0A { end += 1 }
                switch parseLine(UnsafeBufferPointer(rebasing: buffer[start..<end]), uid: uid) {
                case .range(let start, let count, let owner):
                    ranges.append(Range(start: start, count: count, owner: owner, line: lineNumber))
                case .skipped(let why):
                    skipped.append(
                        "\(file):\(lineNumber): skipped (\(why)): its uids count as their own (SEMANTICS H9)"
                    )
                case .nothing: break
                }
                start = end + 1
            }
        }
        var ids = SubordinateIDs(ranges)
        ids.source = file
        return (ids, skipped)
    }

    private enum Line {
        case range(start: UInt32, count: UInt32, owner: UInt32)
        case skipped(String)
        case nothing
    }

    private static func parseLine(_ whole: UnsafeBufferPointer<UInt8>, uid: (String) -> UInt32?) -> Line {
        var first = 0
        var end = whole.count
        while first < end, whole[first] == 0x20 || whole[first] == 0x09 { first += 1 }
        while end > first, whole[end - 1] == 0x20 || whole[end - 1] == 0x09 { end -= 1 }
        guard first < end, whole[first] != UInt8(ascii: "#") else { return .nothing }
        if whole[end - 1] == 0x0D {
            return .skipped("it ends in a carriage return (a CR LF line end), which newuidmap does not read either")
        }
        // The three fields, between the colons.
        var colons = (0, 0)
        var found = 0
        var index = first
        while index < end, found < 3 {
            if whole[index] == UInt8(ascii: ":") {
                found += 1
                if found == 1 { colons.0 = index } else { colons.1 = index }
            }
            index += 1
        }
        guard found == 2 else { return .skipped("expected NAME:START:COUNT, three fields") }
        let owner = UnsafeBufferPointer(rebasing: whole[first..<colons.0])
        guard let start = decimal(UnsafeBufferPointer(rebasing: whole[(colons.0 + 1)..<colons.1])),
            let count = decimal(UnsafeBufferPointer(rebasing: whole[(colons.1 + 1)..<end]))
        else {
            return .skipped("START and COUNT must be integers from 0 to 4294967295")
        }
        if count == 0 { return .skipped("a range of 0 uids") }
        if UInt64(start) + UInt64(count) - 1 > UInt64(UInt32.max - 1) {
            return .skipped("the range goes past uid 4294967294")
        }
        if let uid = decimal(owner) { return .range(start: start, count: count, owner: uid) }
        let name = String(decoding: owner, as: UTF8.self)
        guard let uid = uid(name) else { return .skipped("no user is named \(name)") }
        return .range(start: start, count: count, owner: uid)
    }

    /// The number `digits` spell in decimal, if it is one from 0 to 4294967295.
    private static func decimal(_ digits: UnsafeBufferPointer<UInt8>) -> UInt32? {
        guard !digits.isEmpty, digits.count <= 10 else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + UInt64(digit - UInt8(ascii: "0"))
        }
        return value <= UInt64(UInt32.max) ? UInt32(value) : nil
    }

    /// The bytes of `file`, up to ``maximumFileSize``; `nil` when it cannot be opened.
    private static func contents(of file: String) -> [UInt8]? {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while bytes.count < maximumFileSize {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<min(count, maximumFileSize - bytes.count)])
        }
        return bytes
    }
}

/// User names looked up once each: a file of many lines names few users.
private struct UserNames {
    private var known: [String: UInt32?] = [:]

    mutating func uid(of name: String) -> UInt32? {
        if let answer = known[name] { return answer }
        let answer = Self.lookUp(name)
        if known.count < 65_536 { known[name] = answer }
        return answer
    }

    private static func lookUp(_ name: String) -> UInt32? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.pw_uid
    }
}
