/// A helper that failed to start or answer: what it was doing, and its output.
package struct StandInFailure: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
