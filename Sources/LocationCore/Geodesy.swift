/// Distances on the Earth and the little arithmetic they need, written out because the core imports and
/// links nothing: `sin`, `cos` and `asin` are not in the standard library at all, and its `rounded()`,
/// `squareRoot()` and `truncatingRemainder` call the C library's `floor`, `sqrt` and `fmod` in a debug build.
///
/// The functions are accurate to a few units in the last place over the ranges the rules use (latitudes,
/// longitudes, and angles up to half a turn), which the tests check against the C library's.
enum Geodesy {
    /// The mean radius of the Earth (IUGG), metres.
    static let earthRadius = 6_371_008.8

    /// Metres along a meridian per degree of latitude, on the mean sphere (about 111.2 km).
    static let metresPerDegree = earthRadius * Double.pi / 180

    /// The great-circle distance in metres between two points given in degrees (the haversine formula).
    ///
    /// Haversine rather than the flat-earth approximation: the same function serves 10 m (D10), the 2 m and
    /// 5 m filters of U1, and monitored circles up to ``CircularCondition/maximumRadius`` near the poles,
    /// where the flat approximation is off by hundreds of metres at 100 km.
    static func distance(
        latitude latitudeA: Double,
        longitude longitudeA: Double,
        toLatitude latitudeB: Double,
        longitude longitudeB: Double
    ) -> Double {
        let halfLatitude = radians(latitudeB - latitudeA) / 2
        let halfLongitude = radians(wrappedLongitude(longitudeB - longitudeA)) / 2
        let sinLatitude = sine(halfLatitude)
        let sinLongitude = sine(halfLongitude)
        let h =
            sinLatitude * sinLatitude
            + cosine(radians(latitudeA)) * cosine(radians(latitudeB)) * sinLongitude * sinLongitude
        // NaN stays NaN (clamping would turn it into 0 m, inside every circle); rounding is clamped.
        guard !h.isNaN else { return .nan }
        return 2 * earthRadius * arcsine(squareRoot(min(1, max(0, h))))
    }

    /// A longitude difference brought into -180…180 degrees, so that points either side of the antimeridian
    /// are near.
    static func wrappedLongitude(_ degrees: Double) -> Double {
        guard degrees < -180 || degrees > 180 else { return degrees }
        // Into 0..<360, then -180…180.
        let turned = degrees - 360 * floor(degrees / 360)
        return turned > 180 ? turned - 360 : turned
    }

    static func radians(_ degrees: Double) -> Double { degrees * (Double.pi / 180) }

    /// The cosine of an angle in degrees.
    static func cosine(degrees: Double) -> Double { cosine(radians(degrees)) }

    // MARK: Rounding and roots

    /// The largest integer not above `x` (`x` itself when it is too large to have a fraction, or not finite).
    static func floor(_ x: Double) -> Double {
        guard x.magnitude < 4_503_599_627_370_496 else { return x }  // 2^52: every such double is whole
        let truncated = Double(Int64(x))
        return truncated > x ? truncated - 1 : truncated
    }

    /// The smallest integer not below `x`.
    static func ceiling(_ x: Double) -> Double { -floor(-x) }

    /// √x for x ≥ 0 (NaN below): a first guess from halving the exponent bits, then Newton's iteration,
    /// which doubles the correct digits at each step.
    static func squareRoot(_ x: Double) -> Double {
        guard x > 0, x.isFinite else { return x == 0 || x == .infinity ? x : .nan }
        var root = Double(bitPattern: (x.bitPattern >> 1) &+ 0x1FF8_0000_0000_0000)
        for _ in 0..<6 { root = 0.5 * (root + x / root) }
        return root
    }

    // MARK: Trigonometry

    /// π/2 in two parts (Cody and Waite): the high part has trailing zero bits, so `k * high` is exact and
    /// the reduced argument keeps its precision for the angles used here.
    private static let halfPiHigh = 1.570_796_326_734_125_614_166_259_765_625
    private static let halfPiLow = 6.077_100_506_506_192_249_32e-11

    static func sine(_ x: Double) -> Double {
        let (quadrant, reduced) = reduce(x)
        switch quadrant {
        case 0: return sineKernel(reduced)
        case 1: return cosineKernel(reduced)
        case 2: return -sineKernel(reduced)
        default: return -cosineKernel(reduced)
        }
    }

    static func cosine(_ x: Double) -> Double {
        let (quadrant, reduced) = reduce(x)
        switch quadrant {
        case 0: return cosineKernel(reduced)
        case 1: return -sineKernel(reduced)
        case 2: return -cosineKernel(reduced)
        default: return sineKernel(reduced)
        }
    }

    /// The arcsine of `x` in -1…1, in radians, by Newton's method on ``sine(_:)``; outside, it clamps.
    ///
    /// Above 0.75 it uses asin(x) = π/2 − asin(√(1 − x²)), where Newton's step (which divides by the
    /// cosine) would slow down near the top; √(1 − x²) is then below 0.67, so this recurses once at most.
    static func arcsine(_ x: Double) -> Double {
        guard x.isFinite else { return .nan }
        let clamped = min(1, max(-1, x))
        if clamped < 0 { return -arcsine(-clamped) }
        if clamped > 0.75 { return Double.pi / 2 - arcsine(squareRoot((1 - clamped) * (1 + clamped))) }
        // asin(x) ≥ x on 0…0.75, and Newton's iteration from below converges quadratically; six steps reach
        // the last place from any start here (the error shrinks from 0.1 to below 1e-16 in five).
        var angle = clamped
        for _ in 0..<6 {
            let step = (sine(angle) - clamped) / cosine(angle)
            angle -= step
            if step.magnitude <= 1e-17 { break }
        }
        return angle
    }

    /// `x` as a quadrant (0…3) and a remainder in -π/4…π/4, with x = quadrant · π/2 + remainder (mod 2π).
    private static func reduce(_ x: Double) -> (Int, Double) {
        // Angles here are at most a few turns; far larger ones would lose every digit to the reduction anyway.
        guard x.isFinite, x.magnitude < 1e9 else { return (0, .nan) }
        let k = floor(x / (Double.pi / 2) + 0.5)
        let reduced = (x - k * halfPiHigh) - k * halfPiLow
        return (Int(k) & 3, reduced)
    }

    /// sin x for |x| ≤ π/4: the Taylor series to x¹⁷, whose next term is below 2⁻⁵⁹ there.
    private static func sineKernel(_ x: Double) -> Double {
        let x2 = x * x
        var sum = 1.0 / 355_687_428_096_000  // 1/17!
        sum = sum * x2 - 1.0 / 1_307_674_368_000  // 1/15!
        sum = sum * x2 + 1.0 / 6_227_020_800  // 1/13!
        sum = sum * x2 - 1.0 / 39_916_800  // 1/11!
        sum = sum * x2 + 1.0 / 362_880  // 1/9!
        sum = sum * x2 - 1.0 / 5_040  // 1/7!
        sum = sum * x2 + 1.0 / 120  // 1/5!
        sum = sum * x2 - 1.0 / 6  // 1/3!
        return x + x * x2 * sum
    }

    /// cos x for |x| ≤ π/4: the Taylor series to x¹⁸, whose next term is below 2⁻⁶² there.
    private static func cosineKernel(_ x: Double) -> Double {
        let x2 = x * x
        var sum = -1.0 / 6_402_373_705_728_000  // 1/18!
        sum = sum * x2 + 1.0 / 20_922_789_888_000  // 1/16!
        sum = sum * x2 - 1.0 / 87_178_291_200  // 1/14!
        sum = sum * x2 + 1.0 / 479_001_600  // 1/12!
        sum = sum * x2 - 1.0 / 3_628_800  // 1/10!
        sum = sum * x2 + 1.0 / 40_320  // 1/8!
        sum = sum * x2 - 1.0 / 720  // 1/6!
        sum = sum * x2 + 1.0 / 24  // 1/4!
        sum = sum * x2 - 1.0 / 2  // 1/2!
        return 1 + x2 * sum
    }
}
