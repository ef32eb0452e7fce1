/// Reduces fixes to approximate locations for one stream (SEMANTICS U2): the centre of the
/// ``GridCell`` that holds the true point, with `horizontalAccuracy` 5000 m.
///
/// It is quantisation, not noise (seed 002): averaging many reduced fixes gives back nothing finer than the
/// cell. Only the position, the fixed accuracy and the provider's timestamp are kept; altitude, vertical
/// accuracy, speed and course are withheld, since each would leak what the cell hides (a floor of a
/// building, or a heading and pace to dead-reckon from).
///
/// Hysteresis: a stream keeps the cell it last reported while the true point stays inside that cell
/// enlarged by ``margin`` (5 % of its size, about 500 m, far more than a receiver's jitter) on every side.
/// A point moving along an edge therefore reports one cell, not both in turn; a point that really leaves
/// reports its new cell. The reported point is then within 7.9 km of the truth (7.2 km without the margin;
/// 8.2 km in the few wide cells of the two bands next to the poles).
package struct LocationQuantiser: Sendable {
    /// How far past its edges, as a fraction of its size, a cell is kept.
    package static let margin = 0.05
    /// The `horizontalAccuracy` of every reduced location, metres (U2).
    package static let horizontalAccuracy = 5000.0

    /// The cell this stream reported last.
    package private(set) var cell: GridCell?

    package init() {}

    /// The reduced location of `fix`, moving to a new cell only when the fix is clearly outside the current one.
    package mutating func quantise(_ fix: Fix) -> Fix {
        let current: GridCell
        if let cell, cell.contains(latitude: fix.latitude, longitude: fix.longitude, margin: Self.margin) {
            current = cell
        } else {
            current = GridCell(latitude: fix.latitude, longitude: fix.longitude)
            cell = current
        }
        return Fix(
            latitude: current.centreLatitude,
            longitude: current.centreLongitude,
            horizontalAccuracy: Self.horizontalAccuracy,
            timestamp: fix.timestamp
        )
    }
}
