/// One cell of the reduced-accuracy grid of SEMANTICS U2: about 10 km across anywhere on Earth.
///
/// Latitude is cut into bands of 0.09° (10 km); band `b` spans `b·0.09 … (b+1)·0.09` and its centre
/// latitude is `(b + ½)·0.09`. Each band is cut into `columns` equal longitude steps of
/// `360° / columns`, with `columns = ⌈4000 · cos(band centre)⌉`: the step is 0.09° / cos(band centre) as
/// U2 says, shortened just enough that a whole number of cells circles the band, so that cells meet
/// cleanly at the antimeridian and are never wider than U2's step. The grid is fixed: the same true point
/// always falls in the same cell, whoever asks and whenever.
///
/// Near the poles the band index is clamped (latitude 90 belongs to the last band, not a band of its own)
/// and every band keeps at least one column, so the polar caps are cells too. The reported point, the
/// cell's centre, is within 7.2 km of every point of the cell (the corners of the bands next to the poles
/// are the farthest); ``LocationQuantiser`` adds its hysteresis margin on top.
package struct GridCell: Hashable, Sendable {
    /// The height of a band, degrees of latitude (10 km).
    static let bandHeight = 0.09
    /// Bands run from -1000 (touching the south pole) to 999 (touching the north pole).
    static let bandRange = -1000...999

    /// The latitude band: `floor(latitude / 0.09)`, clamped to ``bandRange``.
    package let band: Int
    /// The longitude step within the band, counted eastwards from -180°.
    package let column: Int
    /// How many steps circle the band.
    package let columns: Int

    /// The cell that contains a point; latitudes beyond ±90 are clamped and longitudes wrap (a coordinate
    /// that is not a number at all counts as 0, so that no input can trap).
    package init(latitude: Double, longitude: Double) {
        let latitude = latitude.isNaN ? 0 : min(90, max(-90, latitude))
        let longitude = longitude.isFinite ? longitude : 0
        let band = Int(Geodesy.floor(latitude / Self.bandHeight))
        self.band = min(Self.bandRange.upperBound, max(Self.bandRange.lowerBound, band))
        let centre = (Double(self.band) + 0.5) * Self.bandHeight
        // 360 / 0.09 = 4000 cells of 0.09° circle the equator.
        columns = max(1, Int(Geodesy.ceiling(4000 * Geodesy.cosine(degrees: centre))))
        let east = Geodesy.wrappedLongitude(longitude) + 180
        let column = Int(Geodesy.floor(east * Double(columns) / 360))
        // 180° is -180°: the point on the antimeridian belongs to the first column.
        self.column = ((column % columns) + columns) % columns
    }

    /// The longitude step of this cell's band, degrees.
    var step: Double { 360 / Double(columns) }

    /// The centre's latitude, degrees.
    package var centreLatitude: Double { (Double(band) + 0.5) * Self.bandHeight }

    /// The centre's longitude, degrees in -180…180.
    package var centreLongitude: Double { -180 + (Double(column) + 0.5) * step }

    /// Whether a point lies inside the cell enlarged on every side by `margin` times its height and width.
    ///
    /// With `margin` 0 this is the cell itself (edges included); hysteresis uses a positive margin.
    func contains(latitude: Double, longitude: Double, margin: Double) -> Bool {
        let south = Double(band) * Self.bandHeight - margin * Self.bandHeight
        let north = Double(band + 1) * Self.bandHeight + margin * Self.bandHeight
        guard latitude >= south && latitude <= north else { return false }
        let offset = Geodesy.wrappedLongitude(longitude - centreLongitude)
        return offset.magnitude <= (0.5 + margin) * step
    }
}
