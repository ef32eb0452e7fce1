// Which fixes the core accepts: a provider that sends garbage must not make the rules trap.
extension Fix {
    /// Whether the fix names a place: finite coordinates within ±90° and ±180°, and a finite accuracy ≥ 0.
    package var isOnEarth: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
            && horizontalAccuracy.isFinite && horizontalAccuracy >= 0
    }
}
