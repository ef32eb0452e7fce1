/// What one `LiveUpdates` stream was sent, and so which location its next update may carry (U1, U2).
///
/// Full accuracy: a fix is sent when it passes the stream's ``LiveConfiguration`` filters against the last
/// location sent. Reduced accuracy: the fix is quantised (``LocationQuantiser``), the first one goes at once
/// and then at most one every 15 minutes (seed 002: "about four times an hour"), and only when its cell differs
/// from the last one sent (seed 002: "居場所にさほど変化がなければ重複通知はしない", no repeated notice while
/// the place has not much changed). An update that goes out for
/// another reason, a change of its mask, carries a location whenever U1 allows one: the current fix at full
/// accuracy; at reduced accuracy the last reduced location again while the throttle runs, so the throttle
/// bounds how often a fresh position is revealed, not how often the flags are.
struct LocationDelivery {
    /// The least time between two fresh reduced locations on one stream (U2).
    static let reducedInterval = Span.seconds(15 * 60)

    let configuration: LiveConfiguration
    /// The app asked for reduced accuracy (U5, `kCLLocationAccuracyReduced`): every location is reduced, whatever
    /// the grant, and no flag says so, the app having chosen it.
    let reducedByChoice: Bool
    private var quantiser = LocationQuantiser()
    /// The last full-accuracy location sent and when; `nil` when the next one goes at once.
    private var lastFull: (fix: Fix, at: Instant)?
    /// The last reduced location sent and when, which starts the throttle.
    private var lastReduced: (fix: Fix, at: Instant)?

    init(configuration: LiveConfiguration, reducedByChoice: Bool = false) {
        self.configuration = configuration
        self.reducedByChoice = reducedByChoice
    }

    /// The location a newly arrived fix is sent as, or `nil` when the filters or the throttle hold it back.
    mutating func fresh(_ fix: Fix, reduced: Bool, at now: Instant) -> Fix? {
        if reduced {
            guard let last = lastReduced else { return sendReduced(fix, at: now) }
            if now < last.at.adding(Self.reducedInterval) { return nil }
            let location = quantiser.quantise(fix)
            // The same cell again is no news (U2): nothing goes, and the next change of cell may go at once.
            if location.latitude == last.fix.latitude && location.longitude == last.fix.longitude { return nil }
            return sendReduced(fix, at: now)
        }
        if let last = lastFull, !configuration.admits(fix, after: last.fix, elapsed: now.since(last.at)) {
            return nil
        }
        lastFull = (fix, now)
        return fix
    }

    /// The location an update that goes out anyway carries, `fix` being the provider's current one.
    mutating func current(_ fix: Fix, reduced: Bool, at now: Instant) -> Fix {
        if reduced {
            guard let last = lastReduced else { return sendReduced(fix, at: now) }
            if now < last.at.adding(Self.reducedInterval) { return last.fix }
            let location = quantiser.quantise(fix)
            // The cell it was sent last: repeat it without restarting the throttle, the place being unchanged.
            if location.latitude == last.fix.latitude && location.longitude == last.fix.longitude { return last.fix }
            return sendReduced(fix, at: now)
        }
        lastFull = (fix, now)
        return fix
    }

    /// The stream's location is withheld (U1): the next full-accuracy one goes at once, unfiltered.
    ///
    /// The reduced throttle keeps running: leaving and re-entering use must not reveal positions faster.
    mutating func withheld() {
        lastFull = nil
    }

    private mutating func sendReduced(_ fix: Fix, at now: Instant) -> Fix {
        let location = quantiser.quantise(fix)
        lastReduced = (location, now)
        // Back at full accuracy, the first fix goes at once rather than being filtered against an old one.
        lastFull = nil
        return location
    }
}
