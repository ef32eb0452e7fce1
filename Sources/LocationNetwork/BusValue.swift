/// A property value of the few types the access points have.
enum BusValue: Equatable {
    case bytes([UInt8])
    case integer(Int)
    case string(String)
    case objectPaths([String])
    case other

    var bytes: [UInt8]? { if case .bytes(let value) = self { value } else { nil } }
    var integer: Int? { if case .integer(let value) = self { value } else { nil } }
    var string: String? { if case .string(let value) = self { value } else { nil } }
    var objectPaths: [String]? { if case .objectPaths(let value) = self { value } else { nil } }
}
