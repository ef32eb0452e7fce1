// Evaluating a circular condition against fixes (SEMANTICS U4).
//
// Entering: a fix at most `radius` from the centre satisfies the condition. Leaving: a satisfied condition
// becomes unsatisfied only when a fix lies beyond the radius by the larger of 25 m and the fix's own
// horizontal accuracy. The band between is hysteresis: a route that runs along the boundary, or a receiver
// jittering across it, reports one entry, not one per fix; and a fix too uncertain to place the device
// outside cannot make it leave. A condition never evaluated is `unknown`; its first fix decides by the
// radius alone.
extension CircularCondition {
    /// The largest radius evaluated, metres; a larger circle reports `conditionUnsupported`.
    ///
    /// Region monitoring is for places, not countries; this bound also keeps every circle far from the
    /// antipode, where a distance on a sphere says little.
    package static let maximumRadius = 100_000.0

    /// The least distance past the radius, metres, that makes a satisfied condition unsatisfied.
    package static let exitMargin = 25.0

    /// Whether the condition can be evaluated: a radius up to ``maximumRadius`` and a circle that does not
    /// reach a pole, where a circle around a centre stops meaning what the app meant.
    package var isSupported: Bool {
        radius <= Self.maximumRadius && latitude.magnitude + radius / Geodesy.metresPerDegree < 90
    }

    /// The state after `fix`, given the state before it.
    package func state(after fix: Fix, from previous: ConditionState) -> ConditionState {
        let distance = Geodesy.distance(
            latitude: latitude,
            longitude: longitude,
            toLatitude: fix.latitude,
            longitude: fix.longitude
        )
        switch previous {
        case .satisfied:
            let margin = max(Self.exitMargin, fix.horizontalAccuracy.isFinite ? fix.horizontalAccuracy : 0)
            return distance > radius + margin ? .unsatisfied : .satisfied
        case .unsatisfied, .unknown:
            return distance <= radius ? .satisfied : .unsatisfied
        }
    }
}
