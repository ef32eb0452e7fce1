import Foundation
import LocationCore

extension Fix {
    /// The fix displaced `north` and `east` metres (negative: south, west), on the mean sphere.
    package func moved(north: Double = 0, east: Double = 0, accuracy: Double? = nil) -> Fix {
        var fix = self
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        fix.latitude += north / metresPerDegree
        fix.longitude += east / (metresPerDegree * cos(latitude * Double.pi / 180))
        if let accuracy { fix.horizontalAccuracy = accuracy }
        return fix
    }
}
