/// Decodes NMEA 0183 lines into ``NMEASentence`` values, counting what it cannot use.
///
/// Input is whatever a file or a serial line holds, so nothing in it is trusted: a line that does not start
/// with `$`, lacks or fails its checksum, holds a byte outside printable ASCII, is longer than any receiver
/// writes, or has a field that does not parse is rejected with a reason and counted, never trapped on. Valid
/// sentences other than GGA and RMC (GSA, GSV, VTG, proprietary `$P…`) are counted as ignored.
package struct NMEASentenceParser: Sendable {
    /// Why a line was rejected; the raw values appear in the daemon's warnings.
    package enum Rejection: String, CaseIterable, Sendable {
        /// It does not start with `$`.
        case notASentence
        /// It has no `*hh` checksum at its end.
        case missingChecksum
        /// The checksum does not match the bytes: a damaged line.
        case checksumMismatch
        /// A field is missing or does not parse, or a byte is not printable ASCII.
        case malformed
        /// Longer than ``NMEASentenceParser/maximumLength``.
        case tooLong
    }

    /// What one line turned out to be.
    package enum Outcome: Equatable, Sendable {
        case sentence(NMEASentence)
        /// A valid sentence of a type that carries no position used here (`GSV`, `PGRME`, …).
        case ignored(type: String)
        case rejected(Rejection)
    }

    /// NMEA allows 82 characters; some receivers write longer lines, none this long.
    package static let maximumLength = 256

    /// Sentences decoded.
    package private(set) var accepted = 0
    /// Valid sentences of other types.
    package private(set) var ignored = 0
    /// Rejected lines, by reason.
    package private(set) var rejections: [Rejection: Int] = [:]

    package init() {}

    /// Rejected lines of every reason.
    package var rejected: Int { rejections.values.reduce(0, +) }

    /// Decodes every line of `text` (lines end in LF or CR LF; blank lines are skipped, uncounted).
    package mutating func sentences(in text: some Collection<UInt8>) -> [NMEASentence] {
        var result: [NMEASentence] = []
        for line in text.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }) {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            if case .sentence(let sentence) = parse(line) { result.append(sentence) }
        }
        return result
    }

    /// Decodes one line (without or with its line ending) and counts the outcome.
    package mutating func parse(_ line: some Collection<UInt8>) -> Outcome {
        let outcome = Self.decode(Array(line))
        switch outcome {
        case .sentence: accepted += 1
        case .ignored: ignored += 1
        case .rejected(let reason): rejections[reason, default: 0] += 1
        }
        return outcome
    }

    /// The rejections as `"2 checksumMismatch, 1 malformed"`, in a fixed order.
    package var rejectionSummary: String {
        Rejection.allCases.compactMap { reason in
            rejections[reason].map { "\($0) \(reason.rawValue)" }
        }.joined(separator: ", ")
    }

    // MARK: Decoding

    private static func decode(_ raw: [UInt8]) -> Outcome {
        var end = raw.count
        while end > 0, [0x0A, 0x0D, 0x20].contains(raw[end - 1]) { end -= 1 }
        let line = raw[..<end]
        guard line.count <= maximumLength else { return .rejected(.tooLong) }
        guard line.first == UInt8(ascii: "$") else { return .rejected(.notASentence) }
        guard let star = line.lastIndex(of: UInt8(ascii: "*")) else { return .rejected(.missingChecksum) }
        guard line.endIndex - star == 3, let high = hexDigit(line[star + 1]), let low = hexDigit(line[star + 2])
        else { return .rejected(.missingChecksum) }
        let body = line[(line.startIndex + 1)..<star]
        guard body.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else { return .rejected(.malformed) }
        guard body.reduce(0, ^) == high << 4 | low else { return .rejected(.checksumMismatch) }
        let fields = body.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard let address = fields.first, address.count >= 3,
            address.allSatisfy({ isUpper($0) || isDigit($0) })
        else { return .rejected(.malformed) }
        let type = String(decoding: address.suffix(3), as: UTF8.self)
        // `$P…` is proprietary: the letters after P name a maker, not a talker.
        guard address.count == 5, address.first != UInt8(ascii: "P") else {
            return .ignored(type: String(decoding: address, as: UTF8.self))
        }
        switch type {
        case "GGA": return gga(Array(fields)).map { .sentence(.gga($0)) } ?? .rejected(.malformed)
        case "RMC": return rmc(Array(fields)).map { .sentence(.rmc($0)) } ?? .rejected(.malformed)
        default: return .ignored(type: type)
        }
    }

    /// `$xxGGA,hhmmss.ss,ddmm.mm,N,dddmm.mm,E,q,nn,hdop,alt,M,geoid,M,age,station`.
    private static func gga(_ fields: [ArraySlice<UInt8>]) -> NMEASentence.GGA? {
        guard fields.count >= 7 else { return nil }
        func field(_ index: Int) -> ArraySlice<UInt8> { index < fields.count ? fields[index] : [] }
        guard let time = optional(field(1), secondsOfDay),
            let position = position(field(2), field(3), field(4), field(5)),
            let quality = optional(field(6), { unsigned($0).flatMap { $0 <= 9 ? $0 : nil } }),
            let satellites = optional(field(7), unsigned),
            let hdop = optional(field(8), { decimal($0) }),
            let altitude = optional(field(9), { decimal($0, negative: true) })
        else { return nil }
        return NMEASentence.GGA(
            secondsOfDay: time,
            latitude: position?.latitude,
            longitude: position?.longitude,
            quality: quality ?? 0,
            satellites: satellites,
            hdop: hdop,
            altitude: altitude
        )
    }

    /// `$xxRMC,hhmmss.ss,A,ddmm.mm,N,dddmm.mm,E,knots,course,ddmmyy,magvar,E,mode[,status]`.
    private static func rmc(_ fields: [ArraySlice<UInt8>]) -> NMEASentence.RMC? {
        guard fields.count >= 10 else { return nil }
        let status = fields[2]
        guard status.count == 1, let flag = status.first, flag == UInt8(ascii: "A") || flag == UInt8(ascii: "V")
        else { return nil }
        // NMEA 2.3's mode indicator: `N` means the data is not valid whatever the status says.
        let mode = fields.count > 12 ? fields[12] : []
        guard let time = optional(fields[1], secondsOfDay),
            let position = position(fields[3], fields[4], fields[5], fields[6]),
            let knots = optional(fields[7], { decimal($0) }),
            let course = optional(fields[8], { decimal($0).flatMap { $0 < 360 ? $0 : nil } }),
            let date = optional(fields[9], date)
        else { return nil }
        return NMEASentence.RMC(
            secondsOfDay: time,
            valid: flag == UInt8(ascii: "A") && mode.first != UInt8(ascii: "N"),
            latitude: position?.latitude,
            longitude: position?.longitude,
            speed: knots.map { $0 * 1852 / 3600 },
            course: course,
            date: date
        )
    }

    // MARK: Fields

    /// `.some(nil)` for an empty field, `.some(value)` for one that parses, `nil` for one that does not.
    private static func optional<T>(_ field: ArraySlice<UInt8>, _ parse: (ArraySlice<UInt8>) -> T?) -> T?? {
        if field.isEmpty { return .some(nil) }
        guard let value = parse(field) else { return nil }
        return .some(value)
    }

    /// Latitude and longitude with their hemispheres: all four empty (no fix) or all four valid.
    private static func position(
        _ latitude: ArraySlice<UInt8>,
        _ northSouth: ArraySlice<UInt8>,
        _ longitude: ArraySlice<UInt8>,
        _ eastWest: ArraySlice<UInt8>
    ) -> (latitude: Double, longitude: Double)?? {
        if latitude.isEmpty && northSouth.isEmpty && longitude.isEmpty && eastWest.isEmpty { return .some(nil) }
        guard let lat = angle(latitude, maximum: 90), let lon = angle(longitude, maximum: 180),
            northSouth.count == 1, eastWest.count == 1
        else { return nil }
        let north: Double
        switch northSouth.first {
        case UInt8(ascii: "N"): north = lat
        case UInt8(ascii: "S"): north = -lat
        default: return nil
        }
        switch eastWest.first {
        case UInt8(ascii: "E"): return .some((north, lon))
        case UInt8(ascii: "W"): return .some((north, -lon))
        default: return nil
        }
    }

    /// `ddmm.mmmm` or `dddmm.mmmm` in degrees: the digits before the minutes' two are degrees.
    private static func angle(_ field: ArraySlice<UInt8>, maximum: Double) -> Double? {
        guard let value = decimal(field) else { return nil }
        let whole = field.prefix { $0 != UInt8(ascii: ".") }
        guard whole.count >= 3 else { return nil }
        let degrees = (value / 100).rounded(.down)
        let minutes = value - degrees * 100
        let result = degrees + minutes / 60
        guard minutes < 60, result <= maximum else { return nil }
        return result
    }

    /// `hhmmss` with an optional fraction, as seconds since midnight.
    private static func secondsOfDay(_ field: ArraySlice<UInt8>) -> Double? {
        let whole = field.prefix { $0 != UInt8(ascii: ".") }
        guard whole.count == 6, let value = decimal(field) else { return nil }
        let digits = Array(whole)
        let hours = Int(digits[0] - 48) * 10 + Int(digits[1] - 48)
        let minutes = Int(digits[2] - 48) * 10 + Int(digits[3] - 48)
        let seconds = value - (value / 100).rounded(.down) * 100
        guard hours < 24, minutes < 60, seconds < 61 else { return nil }
        return Double(hours * 3600 + minutes * 60) + seconds
    }

    /// `ddmmyy`; two-digit years 80–99 are 1980–1999 (GPS began in 1980), the rest 2000–2079.
    private static func date(_ field: ArraySlice<UInt8>) -> NMEASentence.Date? {
        guard field.count == 6, field.allSatisfy(isDigit) else { return nil }
        let digits = field.map { Int($0 - 48) }
        let day = digits[0] * 10 + digits[1]
        let month = digits[2] * 10 + digits[3]
        let year = digits[4] * 10 + digits[5]
        guard (1...31).contains(day), (1...12).contains(month) else { return nil }
        return NMEASentence.Date(year: year >= 80 ? 1900 + year : 2000 + year, month: month, day: day)
    }

    /// Digits with at most one decimal point (and a leading minus where allowed): no exponents, no `nan`.
    private static func decimal(_ field: ArraySlice<UInt8>, negative: Bool = false) -> Double? {
        var digits = field[...]
        var sign = 1.0
        if negative, digits.first == UInt8(ascii: "-") {
            sign = -1
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.count <= 20 else { return nil }
        var whole = 0.0
        var fraction = 0.0
        var scale = 1.0
        var seenPoint = false
        var seenDigit = false
        for byte in digits {
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else if isDigit(byte) {
                seenDigit = true
                if seenPoint {
                    scale /= 10
                    fraction += Double(byte - 48) * scale
                } else {
                    whole = whole * 10 + Double(byte - 48)
                }
            } else {
                return nil
            }
        }
        return seenDigit ? sign * (whole + fraction) : nil
    }

    private static func unsigned(_ field: ArraySlice<UInt8>) -> Int? {
        guard !field.isEmpty, field.count <= 9, field.allSatisfy(isDigit) else { return nil }
        return field.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
}
