/// The names each source of an app id uses, checked and taken apart; anything that does not follow its
/// source's rules names no app.
enum AppIDGrammar {
    /// An id as Flatpak allows it: at most 255 bytes, at least three dot-separated elements, each of
    /// `[A-Za-z0-9_-]` not starting with a digit, and `-` only in the last.
    static func flatpakID(_ id: String) -> String? {
        guard id.utf8.count <= 255 else { return nil }
        let elements = id.split(separator: ".", omittingEmptySubsequences: false)
        guard elements.count >= 3 else { return nil }
        for (index, element) in elements.enumerated() {
            guard let first = element.unicodeScalars.first, !("0"..."9").contains(first) else { return nil }
            let dashAllowed = index == elements.count - 1
            let valid = element.unicodeScalars.allSatisfy { scalar in
                scalar.isASCIIAlphanumeric || scalar == "_" || (dashAllowed && scalar == "-")
            }
            guard valid else { return nil }
        }
        return id
    }

    /// The snap instance name of an AppArmor label `snap.NAME[_KEY].APP (MODE)` or `snap.NAME.hook.HOOK`;
    /// other labels (`unconfined`, `snap-update-ns.NAME`, another profile) name none.
    static func snapName(fromLabel label: String) -> String? {
        var profile = Substring(label)
        if profile.hasSuffix("\n") { profile = profile.dropLast() }
        if let mode = profile.firstRange(of: " (") { profile = profile[..<mode.lowerBound] }
        if let stack = profile.firstRange(of: "//") { profile = profile[..<stack.lowerBound] }
        let parts = profile.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "snap", parts.dropFirst(2).allSatisfy({ !$0.isEmpty }) else {
            return nil
        }
        let instance = parts[1].split(separator: "_", omittingEmptySubsequences: false)
        guard instance.count <= 2, isSnapName(instance[0]) else { return nil }
        if instance.count == 2 {
            let key = instance[1]
            guard (1...10).contains(key.count),
                key.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) })
            else { return nil }
        }
        return String(parts[1])
    }

    /// snapd's rule for a snap name: 2 to 40 of `[a-z0-9-]`, with a letter, no `-` at either end or twice in a
    /// row.
    private static func isSnapName(_ name: Substring) -> Bool {
        guard (2...40).contains(name.count), !name.hasPrefix("-"), !name.hasSuffix("-"), !name.contains("--")
        else { return false }
        let scalars = name.unicodeScalars
        return scalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
            && scalars.contains { ("a"..."z").contains($0) }
    }

    /// The application id of a unit named as systemd's desktop-environment convention asks:
    /// `app-[LAUNCHER-]ID-RANDOM.scope` or `app-[LAUNCHER-]ID[@RANDOM].service`, where `ID` escapes each `-` as
    /// `\x2d` (and may escape other bytes as `\xHH`), and neither `LAUNCHER` nor `RANDOM` holds a `-`.
    static func appID(fromUnit unit: String) -> String? {
        guard unit.hasPrefix("app-") else { return nil }
        var name = Substring(unit.dropFirst(4))
        if name.hasSuffix(".scope") {
            name = name.dropLast(6)
            guard let dash = name.lastIndex(of: "-"), isRandom(name[name.index(after: dash)...]) else { return nil }
            name = name[..<dash]
        } else if name.hasSuffix(".service") {
            name = name.dropLast(8)
            if let at = name.lastIndex(of: "@") {
                guard isRandom(name[name.index(after: at)...]) else { return nil }
                name = name[..<at]
            }
        } else {
            return nil
        }
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        if parts.count == 2 && !parts[0].unicodeScalars.allSatisfy(\.isASCIIAlphanumeric) { return nil }
        return unescape(parts[parts.count - 1])
    }

    private static func hex(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A unit's random part: letters and digits only, as launchers write it.
    private static func isRandom(_ text: Substring) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(\.isASCIIAlphanumeric)
    }

    /// systemd's unit-name escapes undone: `\xHH` is the byte HH. The id must come out as printable ASCII
    /// without `/`, at most 255 bytes; anything else (a bad escape, a control byte) names no app.
    static func unescape(_ escaped: Substring) -> String? {
        var bytes: [UInt8] = []
        var rest = Substring(escaped).utf8[...]
        while let byte = rest.first {
            if byte == UInt8(ascii: "\\") {
                let escape = Array(rest.prefix(4))
                guard escape.count == 4, escape[1] == UInt8(ascii: "x"), let high = hex(escape[2]),
                    let low = hex(escape[3])
                else { return nil }
                bytes.append(high << 4 | low)
                rest = rest.dropFirst(4)
            } else {
                bytes.append(byte)
                rest = rest.dropFirst()
            }
        }
        guard !bytes.isEmpty, bytes.count <= 255,
            bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") })
        else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIIAlphanumeric: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self)
    }
}
