import LocationCore

/// An NMEA file as a timetable: one epoch per UTC time, each a fix or a stretch without one.
///
/// A receiver writes several sentences per epoch (GGA and RMC with the same time); they are merged, GGA
/// giving altitude and HDOP, RMC speed and course. An epoch is a fix only if every sentence of it has one:
/// GGA quality 0 or RMC status `V` makes it a loss of fix.
package struct NMEARoute: Equatable, Sendable {
    /// One moment of the route.
    package struct Epoch: Equatable, Sendable {
        /// Seconds after the first epoch, in the file's own time.
        package var offset: Double
        /// The position, stamped 0 (the replay stamps it when it is delivered); `nil` means no fix.
        package var fix: Fix?
    }

    /// The horizontal accuracy of a fix is its HDOP times this many metres, a typical GPS range error.
    package static let metresPerHDOP = 5.0
    /// The accuracy of a fix whose epoch has no GGA, hence no HDOP.
    package static let accuracyWithoutHDOP = 10.0

    package private(set) var epochs: [Epoch] = []
    /// The pause between the last epoch and the first when the replay loops: the route's last step, or
    /// one second for a route of one epoch.
    package private(set) var loopPause = 1.0

    /// The epochs of `sentences`, in file order.
    package init(sentences: [NMEASentence]) {
        var groups: [(time: Double?, sentences: [NMEASentence])] = []
        for sentence in sentences {
            let time = sentence.secondsOfDay
            if let last = groups.last, Self.belongs(sentence, time: time, to: last) {
                groups[groups.count - 1].sentences.append(sentence)
            } else {
                groups.append((time, [sentence]))
            }
        }
        var offset = 0.0
        var previous: Double?
        for group in groups {
            if let previous {
                offset += Self.step(from: previous, to: group.time)
            }
            previous = group.time ?? previous.map { $0 + 1 } ?? 0
            epochs.append(Epoch(offset: offset, fix: Self.fix(of: group.sentences)))
        }
        if epochs.count >= 2 {
            loopPause = max(epochs[epochs.count - 1].offset - epochs[epochs.count - 2].offset, 0.001)
        }
    }

    /// Whether `sentence` is another sentence of the epoch `group`: the same time, or no time and a type the
    /// epoch lacks.
    private static func belongs(
        _ sentence: NMEASentence,
        time: Double?,
        to group: (time: Double?, sentences: [NMEASentence])
    ) -> Bool {
        if let time { return time == group.time }
        let sameType = group.sentences.contains { existing in
            switch (existing, sentence) {
            case (.gga, .gga), (.rmc, .rmc): true
            default: false
            }
        }
        return !sameType
    }

    /// Seconds from one epoch's time of day to the next: across midnight forwards; a jump backwards (files
    /// joined end to end) or a missing time counts as one second.
    private static func step(from previous: Double, to time: Double?) -> Double {
        guard let time else { return 1 }
        var delta = time - previous
        if delta < -43_200 { delta += 86_400 }
        return delta > 0 ? delta : 1
    }

    private static func fix(of sentences: [NMEASentence]) -> Fix? {
        guard sentences.allSatisfy(\.hasFix) else { return nil }
        var gga: NMEASentence.GGA?
        var rmc: NMEASentence.RMC?
        for sentence in sentences {
            switch sentence {
            case .gga(let value): gga = value
            case .rmc(let value): rmc = value
            }
        }
        guard let latitude = gga?.latitude ?? rmc?.latitude, let longitude = gga?.longitude ?? rmc?.longitude
        else { return nil }
        return Fix(
            latitude: latitude,
            longitude: longitude,
            altitude: gga?.altitude,
            horizontalAccuracy: gga?.hdop.map { $0 * metresPerHDOP } ?? accuracyWithoutHDOP,
            speed: rmc?.speed,
            course: rmc?.course,
            timestamp: 0
        )
    }
}
