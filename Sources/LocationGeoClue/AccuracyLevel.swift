/// GeoClue's accuracy levels (`GClueAccuracyLevel`), as clients set `RequestedAccuracyLevel`.
enum AccuracyLevel {
    static let none: UInt32 = 0
    static let country: UInt32 = 1
    static let city: UInt32 = 4
    static let neighborhood: UInt32 = 5
    static let street: UInt32 = 6
    static let exact: UInt32 = 8
    /// Every level GeoClue defines, the values `RequestedAccuracyLevel` accepts.
    static let all: Set<UInt32> = [none, country, city, neighborhood, street, exact]

    /// Street and exact ask for locd's full accuracy; lower levels are served approximate locations (SEMANTICS U2,
    /// U5), as a city-level client needs no more than the grid cell.
    static func wantsFullAccuracy(_ level: UInt32) -> Bool {
        level >= street
    }
}
