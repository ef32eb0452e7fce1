/// A failed bus call: what failed, and the D-Bus error's name when there was one.
struct BusError: Error, CustomStringConvertible {
    var description: String
    var name: String?

    init(_ description: String, name: String? = nil) {
        self.description = description
        self.name = name
    }
}
