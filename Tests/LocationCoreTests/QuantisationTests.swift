import Foundation
import Testing

@testable import LocationCore

/// U2's grid and quantiser, and the core's own trigonometry, checked against hand computation and the
/// C library.
@Suite("Quantisation")
struct QuantisationTests {
    /// A precise fix at Tokyo Station.
    static let station = Fix(
        latitude: 35.681236,
        longitude: 139.767125,
        horizontalAccuracy: 5,
        timestamp: 1_700_000_000
    )

    /// The great-circle distance by the C library's haversine: an independent check of the core's.
    static func haversine(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let radius = 6_371_008.8
        let (lat1, lat2) = (a.0 * .pi / 180, b.0 * .pi / 180)
        let dLat = lat2 - lat1
        let dLon = (b.1 - a.1) * .pi / 180
        let h = pow(sin(dLat / 2), 2) + cos(lat1) * cos(lat2) * pow(sin(dLon / 2), 2)
        return 2 * radius * asin(min(1, h.squareRoot()))
    }

    /// A deterministic sequence of numbers in 0..<1 (a 64-bit LCG), so a failure reproduces.
    struct Sequence {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    @Test("U2: Tokyo Station quantises to the centre of its cell, as computed by hand")
    func tokyoVector() {
        // Band: floor(35.681236 / 0.09) = floor(396.458…) = 396; centre latitude (396 + ½) · 0.09 = 35.685.
        // Columns: ⌈4000 · cos 35.685°⌉ = ⌈3248.945…⌉ = 3249; step 360 / 3249 = 0.1108033241…°.
        // Column: floor((139.767125 + 180) / 0.1108033241) = floor(2885.90…) = 2885;
        // centre longitude -180 + 2885.5 · 0.1108033241 = 139.7229916897…
        let cell = GridCell(latitude: 35.681236, longitude: 139.767125)
        #expect(cell.band == 396)
        #expect(cell.columns == 3249)
        #expect(cell.column == 2885)
        #expect(abs(cell.centreLatitude - 35.685) < 1e-12)
        #expect(abs(cell.centreLongitude - 139.722_991_689_750_7) < 1e-9)

        var quantiser = LocationQuantiser()
        let reduced = quantiser.quantise(Self.station)
        #expect(reduced.latitude == cell.centreLatitude && reduced.longitude == cell.centreLongitude)
        #expect(reduced.horizontalAccuracy == 5000)
        #expect(reduced.timestamp == Self.station.timestamp)
        // About 4 km west of the station: quantised, not blurred.
        let error = Self.haversine((35.681236, 139.767125), (reduced.latitude, reduced.longitude))
        #expect(error > 3900 && error < 4100)
    }

    @Test("U2: more vectors by hand: the equator, the antimeridian, the southern hemisphere and the poles")
    func moreVectors() {
        // (0.01, 0.01): band 0, centre 0.045; ⌈4000 · cos 0.045°⌉ = ⌈3999.9988⌉ = 4000 columns of 0.09°;
        // column floor(180.01 / 0.09) = 2000, centre -180 + 2000.5 · 0.09 = 0.045.
        let equator = GridCell(latitude: 0.01, longitude: 0.01)
        #expect((equator.band, equator.column, equator.columns) == (0, 2000, 4000))
        #expect(abs(equator.centreLongitude - 0.045) < 1e-9)
        // (-33.8688, 151.2093), Sydney: band floor(-376.32) = -377, centre -33.885;
        // ⌈4000 · cos 33.885°⌉ = ⌈3320.63…⌉ = 3321 columns.
        let sydney = GridCell(latitude: -33.8688, longitude: 151.2093)
        #expect(sydney.band == -377 && abs(sydney.centreLatitude - -33.885) < 1e-12)
        #expect(sydney.columns == 3321)
        // 180° and -180° are one meridian: the same cell, the first of the band.
        #expect(GridCell(latitude: 10, longitude: 180) == GridCell(latitude: 10, longitude: -180))
        #expect(GridCell(latitude: 10, longitude: -180).column == 0)
        #expect(GridCell(latitude: 10, longitude: 540) == GridCell(latitude: 10, longitude: 180))
        // Latitude 90 is in the last band, not one of its own; beyond the poles clamps.
        #expect(GridCell(latitude: 90, longitude: 0).band == 999)
        #expect(GridCell(latitude: 91, longitude: 0) == GridCell(latitude: 90, longitude: 0))
        #expect(GridCell(latitude: -90, longitude: 0).band == -1000)
        #expect(GridCell(latitude: 90, longitude: 0).columns == 4)  // ⌈4000 · cos 89.955°⌉ = ⌈3.14⌉
    }

    @Test("U2: every point of one cell reports the same centre")
    func cellStability() {
        let cell = GridCell(latitude: 35.681236, longitude: 139.767125)
        let south = Double(cell.band) * 0.09
        let west = cell.centreLongitude - cell.step / 2
        var numbers = Sequence(state: 1)
        for _ in 0..<2000 {
            // Strictly inside: a point exactly on an edge belongs to the cell to its north or east.
            let latitude = south + 0.09 * (0.000_001 + 0.999_998 * numbers.next())
            let longitude = west + cell.step * (0.000_001 + 0.999_998 * numbers.next())
            #expect(GridCell(latitude: latitude, longitude: longitude) == cell)
            var quantiser = LocationQuantiser()
            let fix = Fix(latitude: latitude, longitude: longitude, horizontalAccuracy: 3, timestamp: 0)
            let reduced = quantiser.quantise(fix)
            #expect(reduced.latitude == cell.centreLatitude && reduced.longitude == cell.centreLongitude)
        }
    }

    @Test("U2: a point moving to and fro across a cell edge keeps its cell; one that leaves changes it")
    func hysteresis() {
        let cell = GridCell(latitude: 35.681236, longitude: 139.767125)
        let north = Double(cell.band + 1) * 0.09
        var quantiser = LocationQuantiser()
        var reported: [Double] = []
        // Start inside, then jitter ±100 m across the northern edge, forty times.
        for step in 0..<41 {
            let offset = step == 0 ? -0.01 : (step.isMultiple(of: 2) ? -0.0009 : 0.0009)
            let fix = Fix(latitude: north + offset, longitude: 139.767125, horizontalAccuracy: 5, timestamp: 0)
            reported.append(quantiser.quantise(fix).latitude)
        }
        #expect(Set(reported) == [cell.centreLatitude], "the edge never flaps")
        // Without hysteresis, the same points would flap at every step.
        let flapping = (1..<41).map { step in
            GridCell(latitude: north + (step.isMultiple(of: 2) ? -0.0009 : 0.0009), longitude: 139.767125).band
        }
        #expect(Set(flapping).count == 2)
        // 600 m past the edge (beyond the 5 % margin of 500 m) is leaving: the next cell north.
        let left = quantiser.quantise(
            Fix(latitude: north + 0.0054, longitude: 139.767125, horizontalAccuracy: 5, timestamp: 0)
        )
        #expect(abs(left.latitude - (cell.centreLatitude + 0.09)) < 1e-9)
        // And coming back just across the edge keeps the new cell.
        let back = quantiser.quantise(
            Fix(latitude: north - 0.0009, longitude: 139.767125, horizontalAccuracy: 5, timestamp: 0)
        )
        #expect(back.latitude == left.latitude)
    }

    @Test("U2: hysteresis holds across an east-west edge and across the antimeridian too")
    func hysteresisInLongitude() {
        var quantiser = LocationQuantiser()
        let first = quantiser.quantise(Fix(latitude: 0.02, longitude: 179.99, horizontalAccuracy: 5, timestamp: 0))
        for step in 0..<20 {
            let longitude = step.isMultiple(of: 2) ? -179.999 : 179.999
            let reduced = quantiser.quantise(
                Fix(latitude: 0.02, longitude: longitude, horizontalAccuracy: 5, timestamp: 0)
            )
            #expect(reduced.longitude == first.longitude)
        }
    }

    @Test("U2: the reported point is within 7.2 km of the truth, and within 7.9 km with hysteresis")
    func errorBound() {
        var numbers = Sequence(state: 42)
        var worst = 0.0
        var worstWithHysteresis = 0.0
        for _ in 0..<20000 {
            let latitude = -90 + 180 * numbers.next()
            let longitude = -180 + 360 * numbers.next()
            let cell = GridCell(latitude: latitude, longitude: longitude)
            let centre = (cell.centreLatitude, cell.centreLongitude)
            worst = max(worst, Self.haversine((latitude, longitude), centre))
            // The farthest a kept cell is from the truth: the equatorward corner of its margin. In the bands
            // next to the poles (above 89°) the few wide cells reach 8.2 km; LocationQuantiser says so.
            guard abs(latitude) < 89 else { continue }
            let corner = (
                centre.0 + (0.5 + LocationQuantiser.margin) * 0.09 * (latitude < 0 ? 1 : -1),
                centre.1 + (0.5 + LocationQuantiser.margin) * cell.step
            )
            worstWithHysteresis = max(worstWithHysteresis, Self.haversine(corner, centre))
        }
        #expect(worst < 7200, "fresh cells: \(worst) m")
        #expect(worst > 6000, "the bound is not vacuous: \(worst) m")
        #expect(worstWithHysteresis < 7900, "kept cells: \(worstWithHysteresis) m")
        #expect(worstWithHysteresis > 7700, "the bound is not vacuous: \(worstWithHysteresis) m")
    }

    @Test("U2: quantising is deterministic: the same point always gives the same cell, whatever came before")
    func determinism() {
        var numbers = Sequence(state: 7)
        for _ in 0..<500 {
            let latitude = -89 + 178 * numbers.next()
            let longitude = -180 + 360 * numbers.next()
            let fix = Fix(latitude: latitude, longitude: longitude, horizontalAccuracy: 5, timestamp: 0)
            var fresh = LocationQuantiser()
            var other = LocationQuantiser()
            _ = other.quantise(Fix(latitude: -latitude, longitude: longitude / 2, horizontalAccuracy: 5, timestamp: 0))
            #expect(fresh.quantise(fix) == other.quantise(fix))
        }
    }

    @Test("U4: the core's sine, cosine, arcsine and distance agree with the C library")
    func trigonometry() {
        var numbers = Sequence(state: 3)
        for _ in 0..<5000 {
            let angle = -7 + 14 * numbers.next()
            #expect(abs(Geodesy.sine(angle) - sin(angle)) < 1e-15)
            #expect(abs(Geodesy.cosine(angle) - cos(angle)) < 1e-15)
            let x = -1 + 2 * numbers.next()
            #expect(abs(Geodesy.arcsine(x) - asin(x)) < 1e-14)
        }
        for _ in 0..<5000 {
            let a = (-90 + 180 * numbers.next(), -180 + 360 * numbers.next())
            let b = (a.0 + 2 * numbers.next() - 1, a.1 + 2 * numbers.next() - 1)
            let core = Geodesy.distance(latitude: a.0, longitude: a.1, toLatitude: b.0, longitude: b.1)
            #expect(abs(core - Self.haversine(a, b)) < 1e-3, "\(a) → \(b)")
        }
        // Ten metres north is ten metres, and across the antimeridian is near.
        #expect(
            abs(
                Geodesy.distance(latitude: 0, longitude: 0, toLatitude: 10 / Geodesy.metresPerDegree, longitude: 0) - 10
            ) < 1e-9
        )
        #expect(Geodesy.distance(latitude: 0, longitude: 179.9999, toLatitude: 0, longitude: -179.9999) < 23)
    }
}
