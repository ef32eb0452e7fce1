import JSON
import LocationCore
import Varlink

extension CallDecoder {
    /// `SetDesktop`: a desktop source's report of what is in front, or that it cannot read the desktop (L11).
    static func setDesktop(_ p: ParameterReader) throws(VarlinkError) -> Call {
        try p.only(["desktop", "front", "locked", "failure", "user"])
        let user = try p.optionalInt("user", in: 0...Int64(UInt32.max - 1)).map { UInt32($0) }
        return .setDesktop(
            name: try p.string("desktop"),
            front: try p.frontWindows("front"),
            locked: try p.optionalBool("locked") ?? false,
            failure: try p.optionalString("failure"),
            user: user
        )
    }
}

extension ParameterReader {
    /// The windows in front (L12), each `{names, pid?, executable?, descendants?}`.
    func frontWindows(_ name: String) throws(VarlinkError) -> [FrontWindow] {
        guard let value = parameters[name], value != .null else {
            throw .invalidParameter(name, message: "missing: \(name) is required (an empty array when nothing is)")
        }
        guard case .array(let elements) = value else {
            throw .invalidParameter(name, message: "expected an array of FrontWindow, found \(value.typeName)")
        }
        var windows: [FrontWindow] = []
        for element in elements {
            guard case .object(let object) = element else {
                throw .invalidParameter(name, message: "expected a FrontWindow object, found \(element.typeName)")
            }
            let reader = ParameterReader(parameters: object)
            try reader.only(["names", "pid", "executable", "descendants"])
            windows.append(
                FrontWindow(
                    names: try reader.strings("names"),
                    pid: try reader.optionalInt("pid", in: 1...Int64(Int32.max)).map { Int32($0) },
                    executable: try reader.optionalString("executable"),
                    descendants: try reader.pids("descendants")
                )
            )
        }
        return windows
    }

    private func strings(_ name: String) throws(VarlinkError) -> [String] {
        guard let value = parameters[name], value != .null else { return [] }
        guard case .array(let elements) = value else {
            throw .invalidParameter(name, message: "expected an array of strings, found \(value.typeName)")
        }
        var strings: [String] = []
        for element in elements {
            guard let string = element.stringValue else {
                throw .invalidParameter(name, message: "expected strings, found \(element.typeName)")
            }
            strings.append(string)
        }
        return strings
    }

    private func pids(_ name: String) throws(VarlinkError) -> [Int32] {
        guard let value = parameters[name], value != .null else { return [] }
        guard case .array(let elements) = value else {
            throw .invalidParameter(name, message: "expected an array of pids, found \(value.typeName)")
        }
        var pids: [Int32] = []
        for element in elements {
            guard case .int(let number) = element, (1...Int64(Int32.max)).contains(number) else {
                throw .invalidParameter(name, message: "expected pids (integers from 1), found \(element.typeName)")
            }
            pids.append(Int32(number))
        }
        return pids
    }
}
